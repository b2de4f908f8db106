"""ingest."""

# sqlite-utils loads pandas (a large import no command here needs) unless triage.store
# masks it first: import it before any module here imports sqlite_utils.
import triage.store  # noqa: F401, I001
