"""serving."""

# sqlite-utils would load pandas, which no command here needs, unless triage.store imports
# it first through the start-up policy (triage.base.startup): import it before any module
# here imports sqlite_utils.
import triage.store  # noqa: F401, I001
