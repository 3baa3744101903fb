"""Opaque global ids (`base64("Type:pk")`) of the Relay `Node` interface."""

from strawberry import relay

from domain.errors import DomainError, ErrorCode

MAX_PK = 2**63 - 1


def decode_id(gid: relay.GlobalID, type_name: str) -> int | None:
    """The primary key inside `gid` if it names a `type_name`, else None."""
    if gid.type_name != type_name:
        return None
    raw = gid.node_id
    if not raw.isdigit() or not 0 < int(raw) <= MAX_PK:
        return None
    return int(raw)


def require_id(gid: relay.GlobalID, type_name: str, field: str) -> int:
    pk = decode_id(gid, type_name)
    if pk is None:
        raise DomainError(ErrorCode.NOT_FOUND, f"{field} is not the id of a {type_name}.", field)
    return pk


def encode_id(type_name: str, pk: int) -> str:
    return str(relay.GlobalID(type_name, str(pk)))
