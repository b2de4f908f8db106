"""Generate the Triage demo dataset: English verb-noun combinations, idiomatic or literal.

In the spirit of Klubička, Salton & Kelleher (LREC 2018, seed 000): a pool of verb-noun
combinations (VNCs), each judged *idiom* or *literal*, ranked by three models of different
quality. Idioms come from a hand-curated list; literal combinations are built from common
verbs and concrete nouns and filtered through a deny list of known idioms. The three model
scores are SIMULATED from the gold label plus seeded noise; no real model produced them.

Deterministic: the same numpy version and seed give the same file, byte for byte.

    python resources/demo/make_demo.py [--out PATH]
"""

from __future__ import annotations

import argparse
import csv
import io
from pathlib import Path

import numpy as np

SEED = 20180507  # LREC 2018 opened on 7 May 2018
N_TOTAL = 1500
DEFAULT_OUT = Path(__file__).with_name("idioms.csv")
COLUMNS = ["key", "text", "verb", "noun", "example", "gold",
           "m1_frequency", "m2_association", "m3_classifier"]

# Hand-curated idioms: text | verb | noun | example sentence with the idiomatic reading.
# Each is a headword in ordinary idiom dictionaries (Oxford, Cambridge, Collins, Merriam-Webster).
IDIOMS = """
kick the bucket|kick|bucket|Everyone was surprised when the old rock star finally kicked the bucket at ninety-eight.
spill the beans|spill|beans|Come on, spill the beans: who did you see at the party?
break the ice|break|ice|He told a silly joke to break the ice at the start of the meeting.
pull strings|pull|strings|Her uncle pulled strings to get her an interview at the bank.
hit the road|hit|road|It's getting late, so we should hit the road before the traffic starts.
bite the bullet|bite|bullet|I finally bit the bullet and booked the dentist appointment.
face the music|face|music|After missing the deadline twice, he had to face the music.
burn bridges|burn|bridges|Be polite when you resign; there is no point burning bridges.
rock the boat|rock|boat|She agreed with the plan because she didn't want to rock the boat.
miss the boat|miss|boat|Prices have doubled, so I think we missed the boat on buying a house.
jump the gun|jump|gun|The newspaper jumped the gun and announced the result too early.
jump ship|jump|ship|Two of the best engineers jumped ship to a rival company.
call the shots|call|shots|Now that she owns the firm, she calls the shots.
call the tune|call|tune|The investors are paying, so they get to call the tune.
cut corners|cut|corners|The builders cut corners, and the roof started leaking within a year.
drop the ball|drop|ball|The organisers dropped the ball and nobody booked a venue.
pass the buck|pass|buck|The manager passed the buck to his team instead of taking responsibility.
foot the bill|foot|bill|The company footed the bill for the whole trip.
fit the bill|fit|bill|We needed someone patient, and Sam fitted the bill perfectly.
clear the air|clear|air|They sat down and talked honestly to clear the air after the argument.
hit the sack|hit|sack|I'm exhausted, so I'm going to hit the sack.
hit the hay|hit|hay|We hit the hay early because the flight was at six.
hit the books|hit|books|Exams start next week, so I really need to hit the books.
hit the jackpot|hit|jackpot|We hit the jackpot with our new cook; everyone loves her food.
hit the roof|hit|roof|Dad hit the roof when he saw the phone bill.
hit the ceiling|hit|ceiling|She hit the ceiling when she heard the trip was cancelled.
hit the spot|hit|spot|That bowl of hot soup really hit the spot.
hit the ground running|hit|ground|The new manager hit the ground running and fixed the rota in her first week.
hit the nail on the head|hit|nail|You've hit the nail on the head: the real problem is money.
miss the mark|miss|mark|His jokes missed the mark with the audience.
pull the plug|pull|plug|The studio pulled the plug on the film after the budget doubled.
pull one's leg|pull|leg|Relax, I'm only pulling your leg.
pull one's weight|pull|weight|Everyone on the team has to pull their weight.
pull punches|pull|punches|The review didn't pull any punches about the slow service.
pull the wool over someone's eyes|pull|wool|You can't pull the wool over my eyes; I know you ate the last biscuit.
push the envelope|push|envelope|The designers keep pushing the envelope with every new model.
push the boat out|push|boat|For our anniversary we pushed the boat out and booked a fancy hotel.
tie the knot|tie|knot|After ten years together, they finally tied the knot in June.
toe the line|toe|line|Junior ministers are expected to toe the line.
draw the line|draw|line|I don't mind helping, but I draw the line at working weekends.
bury the hatchet|bury|hatchet|The two brothers buried the hatchet after years of not speaking.
break the bank|break|bank|A weekend by the sea won't break the bank.
break the mould|break|mould|Her first novel broke the mould for crime fiction.
break ranks|break|ranks|Several MPs broke ranks and voted against the bill.
break a leg|break|leg|Break a leg tonight; I'll be in the front row!
break new ground|break|ground|The study breaks new ground in cancer research.
bite the dust|bite|dust|Another small bookshop in town has bitten the dust.
bite one's tongue|bite|tongue|I wanted to argue, but I bit my tongue.
blow the whistle|blow|whistle|An employee blew the whistle on the company's fake accounts.
let off steam|let|steam|The kids ran around the park to let off steam after the exam.
let the cat out of the bag|let|cat|My brother let the cat out of the bag about the surprise party.
let sleeping dogs lie|let|dogs|I wanted to ask about the old quarrel, but decided to let sleeping dogs lie.
shoot the breeze|shoot|breeze|We sat on the porch shooting the breeze all afternoon.
chew the fat|chew|fat|The old friends spent the evening chewing the fat.
smell a rat|smell|rat|When the price was that low, I smelled a rat.
steal the show|steal|show|The youngest dancer stole the show.
steal someone's thunder|steal|thunder|She announced her engagement at my party and stole my thunder.
run the show|run|show|Who is running the show while the director is away?
run the gauntlet|run|gauntlet|The minister had to run the gauntlet of angry reporters.
take the plunge|take|plunge|After months of thinking, she took the plunge and quit her job.
take the biscuit|take|biscuit|Him complaining about my cooking really takes the biscuit.
take the floor|take|floor|The bride's father took the floor and gave a long speech.
take the heat|take|heat|The coach took the heat for the team's poor season.
take a back seat|take|back seat|After her promotion, her hobbies had to take a back seat.
take the reins|take|reins|Her son took the reins of the family business last year.
take the helm|take|helm|A new chief executive will take the helm in January.
take the bull by the horns|take|bull|She took the bull by the horns and asked for a pay rise.
take a rain check|take|rain check|I can't come to dinner tonight; can I take a rain check?
take the edge off|take|edge|A quick sandwich will take the edge off your hunger.
take the wind out of someone's sails|take|wind|The early goal took the wind out of their sails.
throw in the towel|throw|towel|After three failed attempts, he threw in the towel.
throw the book at|throw|book|The judge threw the book at the repeat offender.
throw caution to the wind|throw|caution|She threw caution to the wind and spent her savings on a world trip.
throw down the gauntlet|throw|gauntlet|The challenger threw down the gauntlet at the press conference.
turn the tables|turn|tables|The underdogs turned the tables in the second half.
turn the tide|turn|tide|The new vaccine helped turn the tide against the disease.
turn a blind eye|turn|eye|The teachers turned a blind eye to the students' phones.
turn heads|turn|heads|Her bright red car turns heads wherever she goes.
turn over a new leaf|turn|leaf|He has turned over a new leaf and goes to the gym every morning.
pave the way|pave|way|Her research paved the way for new treatments.
pay lip service|pay|lip service|The company only pays lip service to customer care.
pick up the tab|pick up|tab|My parents picked up the tab for dinner.
lend a hand|lend|hand|Could you lend me a hand with these boxes?
give the cold shoulder|give|shoulder|After the argument, she gave him the cold shoulder for a week.
give the game away|give|game|His grin gave the game away.
give up the ghost|give|ghost|My old laptop finally gave up the ghost.
give the green light|give|light|The council gave the green light to the new stadium.
give someone the slip|give|slip|The thief gave the police the slip in the crowd.
get the picture|get|picture|You don't need to explain any more; I get the picture.
get the sack|get|sack|He got the sack for being late every day.
get the boot|get|boot|The singer got the boot after only a month in the band.
get cold feet|get|feet|The groom got cold feet the night before the wedding.
get the ball rolling|get|ball|Let me get the ball rolling by introducing myself.
get the hang of|get|hang|It took me a week to get the hang of the new software.
keep tabs on|keep|tabs|Parents like to keep tabs on their teenagers.
keep one's cool|keep|cool|She kept her cool when the projector died in the middle of her talk.
keep one's head|keep|head|She kept her head when the fire alarm went off.
keep a low profile|keep|profile|After the scandal, he kept a low profile.
keep one's nose clean|keep|nose|He kept his nose clean for the rest of the season.
keep one's fingers crossed|keep|fingers|Keep your fingers crossed for my driving test tomorrow.
lose face|lose|face|The minister refused to apologise because he didn't want to lose face.
save face|save|face|He pretended he had planned it all along to save face.
lose heart|lose|heart|Don't lose heart; the first year is always the hardest.
lose the plot|lose|plot|My neighbour has lost the plot; he's painting his house purple at midnight.
lose ground|lose|ground|The party has lost ground in the latest polls.
gain ground|gain|ground|The idea is gaining ground among young voters.
stand one's ground|stand|ground|She stood her ground and refused to sign.
lose one's shirt|lose|shirt|He lost his shirt on a risky investment.
lose one's head|lose|head|He lost his head and shouted at the referee.
hold one's tongue|hold|tongue|I held my tongue, although I disagreed.
hold the fort|hold|fort|Can you hold the fort while I pop out to the bank?
hold court|hold|court|The professor held court in the pub after the lecture.
hold all the cards|hold|cards|With two job offers on the table, she holds all the cards.
hold one's horses|hold|horses|Hold your horses! We haven't finished the paperwork yet.
hold the purse strings|hold|purse strings|In our family, my grandmother holds the purse strings.
call it a day|call|day|We've done enough painting; let's call it a day.
kill time|kill|time|We killed time in a café while waiting for the train.
buy time|buy|time|The lawyer asked for a delay to buy time.
mark time|mark|time|The company is just marking time until the merger.
kill two birds with one stone|kill|birds|I visited my aunt on the way to the airport, killing two birds with one stone.
flog a dead horse|flog|horse|Arguing about last year's budget is flogging a dead horse.
cry wolf|cry|wolf|If you cry wolf too often, nobody will believe you.
cut the mustard|cut|mustard|The new striker just doesn't cut the mustard.
cut to the chase|cut|chase|Let's cut to the chase: how much will it cost?
cook the books|cook|books|The accountant went to prison for cooking the books.
cross swords|cross|swords|The two senators have crossed swords many times.
do the trick|do|trick|A cup of strong coffee should do the trick.
drag one's feet|drag|feet|The council is dragging its feet over the new cycle lanes.
earn one's stripes|earn|stripes|She earned her stripes working nights in a busy hospital.
eat one's words|eat|words|He said we'd lose, but he had to eat his words.
eat humble pie|eat|pie|After his prediction failed, the pundit had to eat humble pie.
eat one's heart out|eat|heart|Eat your heart out: I'm off to the Bahamas for a month.
fan the flames|fan|flames|His angry posts only fanned the flames.
find one's feet|find|feet|It took her a few months to find her feet in the new job.
follow suit|follow|suit|When one bank cut its rates, the others followed suit.
go the extra mile|go|mile|The hotel staff always go the extra mile for their guests.
go the distance|go|distance|Few people expected the small start-up to go the distance.
go against the grain|go|grain|Saying no to a friend goes against the grain for her.
have a ball|have|ball|The kids had a ball at the fair.
have the last laugh|have|laugh|Critics mocked the film, but the director had the last laugh.
have a chip on one's shoulder|have|chip|He has a chip on his shoulder about not going to university.
hedge one's bets|hedge|bets|He applied to five universities to hedge his bets.
jump through hoops|jump|hoops|We had to jump through hoops to get a visa.
know the ropes|know|ropes|Ask Maria for help; she knows the ropes.
learn the ropes|learn|ropes|I spent my first month at the paper learning the ropes.
lay down the law|lay|law|The new head teacher laid down the law on mobile phones.
leave no stone unturned|leave|stone|The police promised to leave no stone unturned in the search.
lift a finger|lift|finger|He never lifts a finger to help with the housework.
line one's pockets|line|pockets|Corrupt officials lined their pockets with public money.
make a scene|make|scene|Please don't make a scene in the restaurant.
make waves|make|waves|She is new here and doesn't want to make waves.
make the grade|make|grade|Only a few of the applicants made the grade.
make headway|make|headway|The negotiators are finally making headway.
make ends meet|make|ends|With two jobs, she can barely make ends meet.
make a killing|make|killing|Early investors made a killing when the shares doubled.
make a splash|make|splash|The young director made a splash at the film festival.
make tracks|make|tracks|It's nearly midnight; we'd better make tracks.
make hay|make|hay|The shop made hay during the heatwave, selling hundreds of fans.
make a mountain out of a molehill|make|mountain|It's only a scratch; don't make a mountain out of a molehill.
mend fences|mend|fences|The president flew to Paris to mend fences with France.
miss the point|miss|point|You've completely missed the point of the story.
move mountains|move|mountains|Her determination could move mountains.
move the goalposts|move|goalposts|Every time we meet the target, management moves the goalposts.
nip in the bud|nip|bud|The teacher nipped the problem in the bud before it spread.
open a can of worms|open|can|Asking about the budget opened a can of worms.
open the floodgates|open|floodgates|Lowering the price opened the floodgates to new customers.
paint the town red|paint|town|After the exams, we went out and painted the town red.
pass muster|pass|muster|His essay didn't pass muster with the examiner.
pass the hat|pass|hat|We passed the hat around to buy her a leaving present.
play second fiddle|play|fiddle|She was tired of playing second fiddle to her older sister.
play with fire|play|fire|Ignoring letters from the tax office is playing with fire.
play the field|play|field|He isn't ready to settle down; he's still playing the field.
play the fool|play|fool|Stop playing the fool and help us carry the chairs.
pop the question|pop|question|He popped the question at the top of the Eiffel Tower.
pour cold water on|pour|water|The minister poured cold water on the plan for a new airport.
pour oil on troubled waters|pour|oil|She tried to pour oil on troubled waters between her two friends.
raise the bar|raise|bar|The new phone raises the bar for battery life.
raise eyebrows|raise|eyebrows|Her choice of outfit raised a few eyebrows at the funeral.
raise the roof|raise|roof|The crowd raised the roof when the band came on stage.
read the riot act|read|riot act|The coach read the team the riot act at half-time.
ring a bell|ring|bell|The name rings a bell, but I can't place him.
rub salt in the wound|rub|salt|Losing was bad enough; their fans' singing just rubbed salt in the wound.
rule the roost|rule|roost|In this house, the cat rules the roost.
save one's skin|save|skin|He lied to the police to save his own skin.
save the day|save|day|The goalkeeper saved the day with a late penalty stop.
scratch the surface|scratch|surface|This report only scratches the surface of the problem.
shake a leg|shake|leg|Shake a leg, or we'll miss the bus!
show one's true colours|show|colours|He showed his true colours when he refused to help.
split hairs|split|hairs|Arguing about whether it was 9:58 or 10:00 is just splitting hairs.
spread one's wings|spread|wings|After university, she wanted to spread her wings and live abroad.
stay the course|stay|course|Marathon runners need discipline to stay the course.
stem the tide|stem|tide|The government is trying to stem the tide of job losses.
stick one's neck out|stick|neck|I stuck my neck out for you at the meeting.
strike a chord|strike|chord|Her speech about family life struck a chord with the audience.
strike gold|strike|gold|The band struck gold with their second album.
swallow one's pride|swallow|pride|He swallowed his pride and asked his sister for help.
test the waters|test|waters|Let's test the waters with a small trial before the full launch.
tighten one's belt|tighten|belt|With prices rising, many families are tightening their belts.
tip the scales|tip|scales|Her experience tipped the scales in her favour.
touch base|touch|base|Let's touch base again next week.
touch a nerve|touch|nerve|His comment about money touched a nerve.
twist someone's arm|twist|arm|I didn't want dessert, but they twisted my arm.
twiddle one's thumbs|twiddle|thumbs|I spent the afternoon twiddling my thumbs while the network was down.
upset the apple cart|upset|apple cart|Nobody wanted to upset the apple cart just before the merger.
wash one's hands of|wash|hands|I've washed my hands of the whole project.
weather the storm|weather|storm|The little shop weathered the storm of the recession.
wet one's whistle|wet|whistle|Let's stop at the pub to wet our whistles.
wear the trousers|wear|trousers|It's clear who wears the trousers in that house.
feather one's nest|feather|nest|He used his position on the board to feather his own nest.
fly the nest|fly|nest|Both of their children have flown the nest.
bring the house down|bring|house|Her final song brought the house down.
crack the whip|crack|whip|The editor cracked the whip as the deadline approached.
drop a bombshell|drop|bombshell|He dropped a bombshell by announcing his retirement.
pack a punch|pack|punch|This little chilli really packs a punch.
pick someone's brain|pick|brain|Can I pick your brain about moving to Canada?
rattle someone's cage|rattle|cage|Don't let his comments rattle your cage.
sit on the fence|sit|fence|You can't sit on the fence forever; pick a side.
beat the clock|beat|clock|We beat the clock and sent the report at 4:59.
bend the rules|bend|rules|The librarian bent the rules and let me borrow six books.
blaze a trail|blaze|trail|She blazed a trail for women in engineering.
burn the midnight oil|burn|oil|Students burn the midnight oil before their exams.
carry the can|carry|can|Why should I carry the can for his mistakes?
carry weight|carry|weight|Her opinion carries a lot of weight with the board.
change hands|change|hands|The house has changed hands three times in ten years.
change one's tune|change|tune|He changed his tune when he saw the price.
clear the decks|clear|decks|Let's clear the decks before the new project starts.
dig one's heels in|dig|heels|The union dug its heels in over pay.
draw a blank|draw|blank|I asked about the missing file, but everyone drew a blank.
grasp the nettle|grasp|nettle|The government must grasp the nettle and reform pensions.
put one's foot down|put|foot|Mum put her foot down and banned phones at dinner.
put one's foot in it|put|foot|I really put my foot in it when I asked about her ex.
set the record straight|set|record|She gave an interview to set the record straight.
set the world on fire|set|world|His first album didn't exactly set the world on fire.
walk a tightrope|walk|tightrope|The central bank is walking a tightrope between inflation and recession.
burst someone's bubble|burst|bubble|I hate to burst your bubble, but the concert is sold out.
shoot oneself in the foot|shoot|foot|By insulting the voters, he shot himself in the foot.
"""

# Pairs that must never be generated as literal: idioms whose literal reading is common
# ("hit the wall", "hold water") and idioms not in the list above. verb|noun.
EXTRA_DENY = """
hit|wall hold|line turn|corner lead|way hold|breath walk|plank cross|line break|news take|cake
take|bait hold|water blow|fuse blow|gasket see|light pay|price stir|pot tread|water bear|fruit
spin|yarn pass|baton get|message play|ball turn|page set|stage close|book fill|bill sell|farm
buy|farm cut|cheese break|bread break|record hit|target hit|bottle climb|ladder miss|bus
count|sheep push|button plant|seed sow|seed keep|ball carry|torch wave|flag spill|tea
clean|slate wipe|slate sweep|carpet cook|goose rock|cradle fill|shoe hang|boot hang|hat
walk|line paint|picture watch|clock watch|pot open|book cut|cake cross|bridge burn|bridge
call|bluff cut|tie jump|queue break|heart open|eye lose|weight drop|anchor roll|dice
throw|dice lose|touch lose|temper lose|track build|bridge
"""

# Concrete nouns with their article, by category.
NOUNS = {
    "fruit": "an apple, a banana, an orange, a pear, a peach, a lemon, a mango, a melon, "
             "a pineapple, a plum, the grapes, the strawberries",
    "veg": "a carrot, a potato, an onion, a tomato, a cucumber, the carrots, the potatoes, "
           "the onions, the mushrooms, a cabbage, the peppers, the green beans",
    "meal": "a sandwich, a pizza, a salad, soup, a burger, an omelette, pasta, rice, a curry, "
            "noodles",
    "baked": "bread, a cake, a pie, muffins, biscuits, a loaf, scones, a tart, the cupcakes",
    "drink": "water, tea, coffee, milk, juice, lemonade, hot chocolate, a smoothie, a cup of tea",
    "kitchenware": "the dishes, the plates, the cups, the glasses, the pan, the pots, "
                   "the cutlery, the mugs, the bowls, the baking tray",
    "appliance": "the oven, the fridge, the microwave, the dishwasher, the washing machine, "
                 "the freezer, the kettle, the toaster",
    "openable": "the door, the window, the gate, the drawer, the cupboard, the curtains, "
                "the garage, the shed, the wardrobe, the front door, the back door",
    "container": "the box, a jar, a bottle, the parcel, the package, the envelope, a tin, "
                 "the suitcase, the bag, a present",
    "clothing": "a shirt, the trousers, a jacket, a dress, the socks, a coat, a scarf, "
                "a sweater, a skirt, the jeans, a blouse, the uniform",
    "linen": "the towels, the sheets, the tablecloth, the pillowcases, the blanket, the napkins",
    "room": "the floor, the kitchen, the bathroom, the stairs, the carpet, the bedroom, "
            "the living room, the hallway, the attic",
    "vehicle": "the car, the van, the bike, the truck, the motorbike, the scooter, the caravan",
    "document": "the letter, the form, the report, the contract, the invoice, the receipt, "
                "the application",
    "writing": "a letter, a postcard, an email, the report, an essay, a shopping list, "
               "a birthday card, a note, a poem, a thank-you card",
    "reading": "a book, the newspaper, a magazine, the menu, the map, the instructions, "
               "the manual, the recipe, a novel, the timetable, the label, a comic",
    "device": "the phone, the laptop, the printer, the radio, the television, the camera, "
              "the tablet, the heater, the lamp, the clock, the computer, the headphones",
    "furniture": "the sofa, the table, the bed, the desk, the bookcase, the wardrobe, "
                 "the chairs, the armchair, the cabinet, the mirror",
    "paintable": "the fence, the wall, the ceiling, the shed, the door, the kitchen, "
                 "the bedroom, the gate, the garage, the railings, the window frames, the bench",
    "garden": "the plants, the flowers, the lawn, the roses, the tomatoes, the garden, "
              "the hedge, the vegetables, the herbs, the seedlings",
    "pet": "the cat, the dog, the fish, the rabbit, the chickens, the ducks, the hamster, "
           "the guinea pig, the pony",
    "bill": "the bill, the rent, the fine, the fees, the electricity bill, the deposit, "
            "the plumber, the mechanic, the taxi driver, the gas bill",
    "bookable": "a table, a taxi, a room, a flight, a ticket, a hotel, a holiday, a cottage, "
                "an appointment",
    "transport": "the bus, the train, the ferry, the tram, the last train, the early bus, "
                 "the night bus",
    "tool": "a ladder, a drill, a hammer, a saw, the lawnmower, a spade, the wheelbarrow, "
            "a screwdriver, a torch, the stepladder",
    "carryable": "the box, the bags, the suitcase, the shopping, a parcel, the chairs, "
                 "the basket, the boxes, the groceries, the tray, the logs, the firewood, "
                 "the buckets, the laundry basket",
    "show": "a film, the news, the match, a documentary, the game, a cartoon, "
            "the weather forecast, the race, a play",
    "place": "the museum, the zoo, a castle, the market, the gallery, the library, "
             "the cathedral, the aquarium, the farm",
    "rentable": "a flat, a car, a bike, a boat, a house, a van, a caravan, a cottage, a kayak",
    "part": "the battery, the light bulb, the filter, the tyre, the fuse, the cartridge, "
            "the batteries, the tap, the lock",
    "shoes": "the shoes, the boots, the sandals, the trainers",
}

# base | past | categories and/or @explicit noun phrases (comma separated).
VERBS = """
eat|ate|meal @an apple, a banana, an orange, a pear, a peach, a mango, a plum, the grapes, the strawberries, bread, a pie, muffins, biscuits, scones, a tart, the cupcakes, the leftovers, a slice of cake
buy|bought|fruit veg meal baked drink clothing vehicle device furniture tool shoes kitchenware linen appliance @a book, the newspaper, a magazine, a novel, a comic, a map
sell|sold|vehicle device furniture clothing tool @a book, a novel, a comic, the house, the flat, the boat, the caravan
cook|cooked|@dinner, lunch, the pasta, rice, the potatoes, a curry, a stew, the vegetables, an omelette, the noodles, the chicken, the fish, the sausages, soup
peel|peeled|@an apple, an orange, a banana, a pear, a mango, the potatoes, a carrot, an onion, the carrots, a cucumber, a lemon, the prawns
chop|chopped|veg @the herbs, the firewood, the logs
slice|sliced|@bread, the cake, the pie, a tomato, a lemon, a cucumber, the onions, the ham, the cheese, the bread, a loaf, the melon, the pineapple
wash|washed|fruit veg kitchenware clothing linen vehicle @the dog, the windows, the floor
dry|dried|kitchenware clothing linen @the dog
clean|cleaned|room appliance vehicle shoes @the windows, the fish tank, the cage
open|opened|openable container @the oven, the fridge, the microwave, the dishwasher, the washing machine, the freezer, the letter, the email, the newspaper
close|closed|openable @the laptop, the shop, the oven, the fridge
lock|locked|@the door, the window, the gate, the car, the drawer, the bike, the shed, the garage, the van, the suitcase, the cupboard, the front door, the back door
carry|carried|carryable
move|moved|furniture vehicle @the boxes, the bins, the plants
paint|painted|paintable @a chair, the table
fix|fixed|device vehicle @the tap, the roof, the leak, the fence, the door, the sink, a chair, the lock, the shelf, the gate, the boiler
repair|repaired|device vehicle @the roof, the fence, the shoes, the wall, the boiler, the tyre
read|read|reading document
write|wrote|writing
sign|signed|document @the cheque, the card, the birthday card, the register
print|printed|@the letter, the form, the report, the contract, the invoice, the application, the tickets, the photos, the boarding pass, the map, the recipe
send|sent|@a letter, a postcard, an email, a birthday card, the invoice, the parcel, a package, the invitations, a text message, the photos, the report, a thank-you card
post|posted|@the letter, a parcel, the package, a postcard, the invitations, the cheque, the birthday card, the form
drink|drank|drink
pour|poured|drink @the cereal, the sauce, the gravy, the wine
bake|baked|baked @a pizza, the potatoes
order|ordered|meal drink @a taxi, dessert, the starters, a takeaway
fold|folded|clothing linen @the map, the letter, the newspaper
iron|ironed|@a shirt, the trousers, a dress, a skirt, a blouse, the uniform, the jeans, a handkerchief, the sheets, the tablecloth, the napkins, the pillowcases
pack|packed|@the suitcase, the bags, the shopping, a lunch, the boxes, the car, a picnic, the sandwiches, the clothes, the books
unpack|unpacked|@the suitcase, the bags, the shopping, the boxes, the groceries, the car, the dishwasher, the van
water|watered|garden
feed|fed|pet @the birds, the baby
walk|walked|@the dog, the dogs
park|parked|@the car, the van, the truck, the motorbike, the caravan, the bike, the scooter
drive|drove|@the car, the van, the truck, the bus, the tractor, the lorry
ride|rode|@the bike, the motorbike, the scooter, a horse, the pony, a camel
charge|charged|@the phone, the laptop, the tablet, the camera, the batteries, the electric car, the headphones, the torch
borrow|borrowed|tool @a book, a magazine, a novel, the car, the van, an umbrella, a pen, a bike
return|returned|@the book, the library books, the car, the van, the keys, the dress, the shoes, the jacket, a parcel, the tools, the ladder, the drill
lend|lent|@a pen, an umbrella, the car, the ladder, the drill, a book, a jacket, the bike
pay|paid|bill
book|booked|bookable
answer|answered|@the phone, the door, the email, the letter, the question
check|checked|@the tyres, the email, the oil, the post, the map, the timetable, the weather forecast, the receipt, the bill, the temperature, the locks, the brakes
sweep|swept|@the floor, the kitchen, the path, the yard, the patio, the chimney, the leaves, the stairs
mop|mopped|@the floor, the kitchen, the bathroom, the hallway
empty|emptied|@the bin, the bins, the dishwasher, the washing machine, the box, the fridge, the bucket, the bath, the teapot
fill|filled|@the kettle, the bath, the glass, the bucket, the tank, the jug, the vase, the bottles, the watering can
boil|boiled|@the kettle, water, an egg, the potatoes, rice, the pasta, the eggs, the milk
plant|planted|@a tree, the roses, the tomatoes, the bulbs, flowers, the potatoes, a hedge, the herbs, an apple tree
mow|mowed|@the lawn, the grass, the verge
hang|hung|@the washing, a picture, the coats, a mirror, the curtains, the clothes, the lights, the towels, a painting
watch|watched|show
visit|visited|place
rent|rented|rentable
catch|caught|transport
polish|polished|shoes @the car, the table, the silver, the mirror, the floor, the windows
sew|sewed|@a button, a dress, the curtains, a patch, a cushion cover
mend|mended|@a sock, the socks, the jacket, the net, the tent, the bike, the roof, the chair
wrap|wrapped|@a present, the sandwiches, the presents, the parcel, the gifts, the leftovers
tidy|tidied|@the bedroom, the kitchen, the living room, the desk, the cupboard, the toys, the shelves, the garden
lift|lifted|@the box, the suitcase, the sofa, the boxes, the table, the lid
push|pushed|@the pram, the trolley, the bike, the car, the wheelbarrow, the buggy, the door, the cart, the lawnmower
load|loaded|@the dishwasher, the van, the washing machine, the car, the truck, the lorry, the boat
unload|unloaded|@the dishwasher, the van, the washing machine, the car, the truck, the shopping, the lorry
replace|replaced|part
fry|fried|@an egg, the onions, the potatoes, the fish, the sausages, the bacon, the mushrooms, the rice
grill|grilled|@the sausages, the burgers, the fish, the vegetables, the chicken, the peppers, the corn
toast|toasted|@bread, the bread, a bagel, the crumpets, the nuts
set|set|@the table, the alarm, the timer
clear|cleared|@the table, the snow, the drive, the gutters, the drain, the path
heat|heated|@the soup, the milk, the oven, the water, the leftovers, the pan
stir|stirred|@the soup, the sauce, the tea, the coffee, the paint, the porridge, the batter, the risotto
taste|tasted|@the soup, the sauce, the wine, the cake, the curry, the cheese, the stew, the gravy
share|shared|@a pizza, the cake, the bill, a taxi, the sandwiches, the chips, a bottle of wine, the sweets
count|counted|@the chairs, the boxes, the coins, the money, the plates, the tickets, the votes
brush|brushed|@the dog, the horse, the carpet, the jacket, the cat
climb|climbed|@the stairs, a tree, the hill, the mountain, the steps, the fence
cross|crossed|@the road, the street, the river, the square, the car park, the field
kick|kicked|@the ball, the tyres, the door
find|found|@the keys, the remote, the passport, a pen, the charger, the receipt, the tickets, the umbrella, the wallet, the map
lose|lost|@the keys, the tickets, the receipt, an umbrella, the remote, the wallet, the charger, a glove, the passport
drop|dropped|@a glass, the plate, the keys, a cup, the tray, the phone, an egg
break|broke|@a glass, a plate, a cup, the window, the vase, a mug, the mirror, the lamp
throw|threw|@the ball, the frisbee, a snowball, the stick, a dart
pick|picked|@the apples, the strawberries, flowers, the grapes, the raspberries, the plums, the tomatoes, the cherries
grow|grew|@tomatoes, potatoes, carrots, herbs, strawberries, roses, sunflowers, lettuce, beans
play|played|@the piano, the guitar, the violin, chess, cards, tennis, football, the drums, golf
cut|cut|@the grass, the bread, the paper, the ribbon, the hedge, the rope, the onions, the pizza
deliver|delivered|@the parcel, the post, the newspapers, the pizza, the letters, the furniture, the groceries
collect|collected|@the parcel, the tickets, the post, the keys, the laundry, the car, the rubbish, the prescription
install|installed|@the printer, the heater, the dishwasher, a shower, the software, a new boiler, the washing machine, the lamp
wear|wore|@a jacket, a coat, a scarf, a dress, the uniform, a hat, sunglasses, boots, a helmet, gloves, a tie
knit|knitted|@a scarf, a sweater, a hat, the socks, a blanket
rinse|rinsed|@the glasses, the cups, the rice, the vegetables, the spinach, the sink
scrub|scrubbed|@the floor, the pans, the bath, the sink, the potatoes, the oven, the patio
vacuum|vacuumed|@the carpet, the stairs, the car, the living room, the bedroom, the hallway, the sofa
sharpen|sharpened|@the knives, a pencil, the scissors, the saw
decorate|decorated|@the cake, the tree, the hall, the bedroom, the kitchen, the cupcakes
mix|mixed|@the flour, the paint, the salad, the batter, the sauce
roll|rolled|@the dough, the pastry, the ball
photograph|photographed|@the cathedral, the garden, the cake, the bridge, the sunset, the cat
measure|measured|@the room, the window, the wall, the table, the flour, the sofa
recycle|recycled|@the bottles, the newspapers, the cans, the boxes, the glass, the plastic
build|built|@a shed, a fence, a sandcastle, a snowman, a treehouse, a wall, a bookcase
dig|dug|@a hole, the garden, the vegetable patch, a pond, the potatoes, a trench
bring|brought|@the chairs, the drinks, a salad, the dessert, an umbrella, the wine, the plates, a torch, the map
warm|warmed|@the plates, the milk, the soup, the bread, the pie
squeeze|squeezed|@a lemon, the oranges, the lemons, the toothpaste
spread|spread|@the butter, the jam, the blanket, the map, the towel, the picnic rug
butter|buttered|@the toast, the bread, the scones, the crumpets
"""

SUBJECTS = ["She", "He", "We", "I", "My sister", "My brother", "Our neighbour", "Tom",
            "Anna", "Grandma", "My flatmate", "The teacher"]
WHEN_PAST = ["yesterday", "this morning", "last night", "on Saturday", "after lunch",
             "before work", "last week", "earlier today", "on Sunday afternoon"]
ASKERS = ["My sister", "Tom", "The teacher", "Our neighbour", "Grandma", "My flatmate", "Anna",
          "My boss", "Dad"]
WATCHED = ["him", "her", "them", "Tom", "Anna", "my brother", "the neighbours", "Grandma"]
ACCIDENTAL = {"drop", "lose", "break"}
DETERMINERS = ("a", "an", "the")
# Literal combinations always in the pool: the textbook contrasts to the idioms above.
LITERAL_ANCHORS = {"eat an apple", "open the door", "pay the bill", "wash the car",
                   "read a book", "drink water"}


def _noun_of(phrase: str) -> str:
    """The noun part of a noun phrase: drop a leading article."""
    first, _, rest = phrase.partition(" ")
    return rest if first in DETERMINERS and rest else phrase


def _stem(noun: str) -> str:
    """Crude singular of the head word, so "fences" and "fence" hit the same deny entry."""
    word = noun.lower().split()[-1]
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _pair(verb: str, noun: str) -> tuple[str, str]:
    return verb.split()[0].lower(), _stem(noun)


def parse_idioms() -> list[tuple[str, str, str, str]]:
    """The hand-curated idioms as (text, verb, noun, example)."""
    rows = [tuple(line.split("|")) for line in IDIOMS.strip().splitlines()]
    assert all(len(r) == 4 for r in rows), "each idiom line needs text|verb|noun|example"
    return rows  # type: ignore[return-value]


def deny_pairs() -> set[tuple[str, str]]:
    """(verb, noun stem) pairs never generated as literal: every idiom plus EXTRA_DENY."""
    pairs = {_pair(verb, noun) for _, verb, noun, _ in parse_idioms()}
    pairs |= {_pair(*item.split("|")) for item in EXTRA_DENY.split()}
    return pairs


def literal_candidates() -> list[tuple[str, str, str, str]]:
    """All admissible literal (text, verb, noun, past tense) combinations, in a fixed order."""
    deny = deny_pairs()
    seen: set[str] = set()
    out = []
    for line in VERBS.strip().splitlines():
        base, past, spec = line.split("|")
        cats, _, explicit = spec.partition("@")
        phrases = [p for c in cats.split() for p in NOUNS[c].split(", ")]
        phrases += [p.strip() for p in explicit.split(",") if p.strip()]
        for phrase in phrases:
            text = f"{base} {phrase}"
            noun = _noun_of(phrase)
            if text in seen or _pair(base, noun) in deny:
                continue
            seen.add(text)
            out.append((text, base, noun, past))
    return out


def _literal_example(rng: np.random.Generator, base: str, past: str, phrase: str) -> str:
    """A plain sentence with the literal combination, from a few natural templates."""
    template = int(rng.integers(4))
    if template == 2 and base not in ACCIDENTAL:  # nobody asks you to drop an egg
        asker = ASKERS[rng.integers(len(ASKERS))]
        return f"{asker} asked me to {base} {phrase}."
    if template == 3:
        seen = WATCHED[rng.integers(len(WATCHED))]
        return f"I watched {seen} {base} {phrase}."
    subj = SUBJECTS[rng.integers(len(SUBJECTS))]
    when = WHEN_PAST[rng.integers(len(WHEN_PAST))]
    return f"{subj} {past} {phrase} {when}."


def simulate_scores(rng: np.random.Generator, gold: np.ndarray) -> dict[str, np.ndarray]:
    """Three simulated models of clearly different quality, driven by gold plus noise.

    m1: corpus-frequency-like integer counts (weak, many ties).
    m2: association-measure-like positive float (medium).
    m3: classifier probability in [0, 1] (strong, leans towards idiom: see docs/guide/lead.md).
    """
    n = gold.size
    g = gold.astype(float)
    m1 = 1.0 + np.floor(np.exp(rng.normal(1.2 + 0.55 * g, 1.1, n)))  # seen at least once
    raw = rng.normal(0.5 + 1.2 * g, 1.0, n)
    m2 = np.log1p(np.exp(2.0 * raw))  # softplus keeps the measure positive, like a G-score
    latent = rng.normal(-1.3 + 2.7 * g, 1.0, n)
    m3 = 1.0 / (1.0 + np.exp(-2.2 * latent + 0.4))  # shifted: leans towards idiom
    return {"m1_frequency": m1, "m2_association": m2, "m3_classifier": m3}


def build_rows(seed: int = SEED, n_total: int = N_TOTAL) -> list[dict[str, str]]:
    """The full demo table as CSV-ready string rows, in file order."""
    rng = np.random.default_rng(seed)
    idioms = parse_idioms()
    pool = literal_candidates()
    n_literal = n_total - len(idioms)
    if n_literal > len(pool):
        raise ValueError(f"only {len(pool)} literal candidates for {n_literal} slots")
    anchors = [i for i, cand in enumerate(pool) if cand[0] in LITERAL_ANCHORS]
    rest = np.setdiff1d(np.arange(len(pool)), anchors)
    drawn = rng.choice(rest, size=n_literal - len(anchors), replace=False)
    chosen = sorted(anchors + drawn.tolist())
    items = [(t, v, n, ex, "idiom") for t, v, n, ex in idioms]
    for i in chosen:
        text, base, noun, past = pool[i]
        phrase = text[len(base) + 1:]
        items.append((text, base, noun, _literal_example(rng, base, past, phrase), "literal"))
    order = rng.permutation(len(items))
    items = [items[i] for i in order]
    gold = np.array([it[4] == "idiom" for it in items])
    scores = simulate_scores(rng, gold)
    rows = []
    for i, (text, verb, noun, example, label) in enumerate(items):
        rows.append({
            "key": f"vnc-{i + 1:05d}", "text": text, "verb": verb, "noun": noun,
            "example": example, "gold": label,
            "m1_frequency": f"{int(scores['m1_frequency'][i])}",
            "m2_association": f"{scores['m2_association'][i]:.3f}",
            "m3_classifier": f"{scores['m3_classifier'][i]:.4f}",
        })
    return rows


def render(rows: list[dict[str, str]]) -> bytes:
    """UTF-8 CSV bytes with '\\n' line endings, so the output is platform independent."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write the CSV")
    parser.add_argument("--seed", type=int, default=SEED, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    data = render(build_rows(args.seed))
    args.out.write_bytes(data)
    n_rows = data.count(b"\n") - 1
    print(f"wrote {args.out} ({n_rows} rows)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
