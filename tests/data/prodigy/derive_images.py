"""Writes the Prodigy image fixtures beside it, from Prodigy's documented image task format.

Prodigy could not be run here (see README.md). An image task holds the picture in
``image``: a base64 data URI (what the ``Images`` loader, ``image.manual`` and
``classify-images``-style recipes put there by default), a URL or a path. The loader keeps
the file name in ``meta.file``. Binary tasks carry ``label`` and ``answer``; choice tasks
``options`` and ``accept``. Run it from this folder: ``python derive_images.py``. The
output is committed; this file only records how.
"""

import base64
import json
import struct
import zlib

T = 1732560000  # _timestamp: unix seconds


def png(colour, size=(8, 6)):
    """A tiny PNG of one colour (deterministic bytes, no imaging library needed)."""
    width, height = size
    raw = b"".join(b"\x00" + bytes(colour) * width for _ in range(height))

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                              0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def uri(data):
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def write(name, rows):
    with open(name, "w", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


PICTURES = {"cat1.png": (200, 40, 40), "cat2.png": (220, 90, 60), "dog1.png": (40, 40, 200),
            "bird1.png": (30, 160, 30)}


def binary():
    """A classify-images style recipe: is this a CAT? base64 images, two annotators."""
    plan = [("cat1.png", "accept", "ada", 0.94), ("dog1.png", "reject", "ada", 0.21),
            ("cat2.png", "accept", "ada", 0.77), ("bird1.png", "ignore", "ada", 0.48),
            ("cat1.png", "accept", "bo", 0.94), ("dog1.png", "reject", "bo", 0.21)]
    rows = []
    for n, (name, answer, who, score) in enumerate(plan):
        input_hash = [-1402913155, 611852043, 1988374620, -733402911][list(PICTURES).index(name)]
        rows.append({"image": uri(png(PICTURES[name])), "meta": {"file": name, "score": score},
                     "_input_hash": input_hash, "_task_hash": input_hash ^ 0x5A5A,
                     "label": "CAT", "_view_id": "classification", "answer": answer,
                     "_timestamp": T + 7 * n, "_annotator_id": f"pets-{who}",
                     "_session_id": f"pets-{who}"})
    write("images_binary.jsonl", rows)


def choice():
    """A choice recipe over pictures given as a path, a URL and a data URI."""
    options = [{"id": o, "text": o} for o in ("CAT", "DOG", "BIRD")]
    images = [("images/dog.png", "DOG"), ("https://example.org/pets/cat.jpg", "CAT"),
              (uri(png(PICTURES["bird1.png"])), "BIRD")]
    rows = [{"image": image, "options": options, "_input_hash": 5100 + n,
             "_task_hash": 7100 + n, "_view_id": "choice", "config": {"choice_style": "single"},
             "accept": [label], "answer": "accept", "_timestamp": T + 60 + n,
             "_annotator_id": "pets-cy", "_session_id": "pets-cy"}
            for n, (image, label) in enumerate(images)]
    write("images_choice.jsonl", rows)
    with open("images/dog.png", "wb") as handle:
        handle.write(png(PICTURES["dog1.png"]))


if __name__ == "__main__":
    binary()
    choice()
