"""Opaque global ids (`base64("Type:pk")`) of the Relay `Node` interface."""

import re

from strawberry import relay

from domain.errors import DomainError, ErrorCode

MAX_PK = 2**63 - 1


def parse_pk(raw: str) -> int | None:
    """A primary key written in ASCII digits, in range; None for anything else.

    str.isdigit() alone also accepts '²' and Arabic-Indic digits, which int() would
    turn into a second name for the same object."""
    if not (raw.isascii() and raw.isdigit()) or not 0 < int(raw) <= MAX_PK:
        return None
    return int(raw)


def decode_id(gid: relay.GlobalID, type_name: str) -> int | None:
    """The primary key inside `gid` if it names a `type_name`, else None."""
    if gid.type_name != type_name:
        return None
    return parse_pk(gid.node_id)


def decode_text(text: str, type_name: str) -> int | None:
    """The primary key inside a global id given as text (a path or a query parameter), if
    it names a `type_name`; None for anything else, malformed ones included."""
    try:
        return decode_id(relay.GlobalID.from_id(text), type_name)
    except ValueError:
        return None


def require_id(gid: relay.GlobalID, type_name: str, field: str) -> int:
    pk = decode_id(gid, type_name)
    if pk is None:
        raise DomainError(ErrorCode.NOT_FOUND, f"No such {_words(type_name)}.", field)
    return pk


def _words(type_name: str) -> str:
    """`WorkOrder` -> "work order"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", type_name).lower()


def encode_id(type_name: str, pk: int) -> str:
    return str(relay.GlobalID(type_name, str(pk)))
