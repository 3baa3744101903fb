"""Whether a document's answers are kept by the read cache (graph/read_cache.py), and for
whom: a fact of the document, kept with it when accepted (graph/documents.py)."""

from enum import Enum


class Keeping(Enum):
    NEVER = "never"  # it asks for a field that reads more than the database
    BY_RIGHTS = "rights"  # one answer for every viewer of the same rights (`Viewer.rights`)
    BY_PERSON = "person"  # a field's answer depends on who asks: an answer per person
