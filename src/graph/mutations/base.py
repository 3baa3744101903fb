"""The one place a mutation's unit of work is opened, committed or rolled back."""

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

from db.engine import unit_of_work
from domain.errors import DomainError, NotAllowed
from graph.context import Info
from graph.errors import UserError, forbidden


class Payload(Protocol):
    def __init__(self, *, user_errors: list[UserError]) -> None: ...


P = TypeVar("P", bound=Payload)


async def mutate(
    info: Info, payload: type[P], work: Callable[[AsyncConnection], Awaitable[P]]
) -> P:
    """Run `work` in one transaction. A DomainError rolls everything back and becomes a
    user error; a NotAllowed becomes a top-level FORBIDDEN. Loaders are cleared after,
    so fields of the payload read the committed state."""
    try:
        async with unit_of_work(info.context.services.engine) as conn:
            result = await work(conn)
        info.context.services.outage.answered()
        # After the commit, never before: the feed then reads what was committed.
        if info.context.services.feed is not None:
            info.context.services.feed.poke()
        return result
    except DomainError as error:
        return payload(user_errors=[UserError.of(error)])
    except NotAllowed as error:
        raise forbidden(str(error)) from error
    finally:
        info.context.loaders.clear_all()
