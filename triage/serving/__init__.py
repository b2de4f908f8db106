"""serving."""

# sqlite-utils loads pandas (0.4 s) unless triage.store masks it first: import it before
# any module here imports sqlite_utils.
import triage.store  # noqa: F401, I001
