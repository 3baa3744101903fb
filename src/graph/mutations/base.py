"""The one place a mutation's unit of work is opened, committed or rolled back."""

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

from api.errors import forbidden, rate_limited
from db.credentials import HashingBusy
from db.engine import unit_of_work
from domain.errors import DomainError, NotAllowed, each
from graph.context import Info
from graph.errors import UserError


class Payload(Protocol):
    def __init__(self, *, user_errors: list[UserError]) -> None: ...


P = TypeVar("P", bound=Payload)


async def mutate(
    info: Info,
    payload: type[P],
    work: Callable[[AsyncConnection], Awaitable[P]],
    *,
    before: Callable[[], Awaitable[None]] | None = None,
    changes_access: bool = False,
    transaction: bool = True,
) -> P:
    """Run `work` in one transaction. A DomainError rolls everything back and becomes
    user errors (one per problem of the input); a NotAllowed becomes a top-level
    FORBIDDEN. Loaders are cleared after, so fields of the payload read the committed
    state. Mutations that revoke tokens or
    change who may do what say `changes_access`, so that no cached viewer outlives them.
    Work whose one write is a single statement, with nothing after it that can fail,
    may do without the `transaction` (db.engine.unit_of_work). Work that waits for
    something other than the database (a password's check or hash, on workers that may
    be busy, counted by the throttle on connections of its own) is done `before`, with no
    connection held: a request never holds a pooled connection while it waits."""
    try:
        if before is not None:
            await before()
        async with unit_of_work(info.context.services.engine, transaction=transaction) as conn:
            result = await work(conn)
        info.context.services.outage.answered()
        if changes_access:
            # Who a token is may have changed: no request may act on the cached answer.
            info.context.services.viewers.clear()
        # After the commit, never before: the feed then reads what was committed.
        if info.context.services.feed is not None:
            info.context.services.feed.poke()
        return result
    except DomainError as error:
        return payload(user_errors=[UserError.of(one) for one in each(error)])
    except NotAllowed as error:
        raise forbidden(str(error)) from error
    except HashingBusy as busy:
        raise rate_limited(info.context.response, busy.retry_after) from busy
    finally:
        info.context.loaders.clear_all()
