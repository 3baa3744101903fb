"""The Mutation type: each mutation lives in its own module; permissions are declared here."""

import strawberry

from graph.mutations import (
    account,
    cancel_work_order,
    create_customer,
    create_work_order,
    login,
    people,
    post_ledger_entry,
    tasks,
    tokens,
    update_work_order_quote,
)
from graph.permissions import ADMINS, READS_LEDGER, SALES, SESSION, STAFF, allowed


@strawberry.type
class Mutation:
    login = strawberry.mutation(resolver=login.login)

    create_department = strawberry.mutation(
        resolver=people.create_department, extensions=allowed(ADMINS)
    )
    create_user = strawberry.mutation(resolver=people.create_user, extensions=allowed(ADMINS))
    set_user_departments = strawberry.mutation(
        resolver=people.set_user_departments, extensions=allowed(ADMINS)
    )
    deactivate_user = strawberry.mutation(
        resolver=people.deactivate_user,
        extensions=allowed(ADMINS),
        description="The user can no longer sign in; every token of theirs stops working "
        "at once, live subscriptions included.",
    )
    reactivate_user = strawberry.mutation(
        resolver=people.reactivate_user, extensions=allowed(ADMINS)
    )
    set_password = strawberry.mutation(
        resolver=people.set_password,
        extensions=allowed(ADMINS),
        description="Sets a user's password (e.g. for imported users); their sessions end.",
    )
    logout = strawberry.mutation(
        resolver=account.logout,
        extensions=allowed(STAFF),
        description="Revokes the token the request came with.",
    )
    change_password = strawberry.mutation(
        resolver=account.change_password,
        extensions=allowed(STAFF),
        description="The caller's own password, given the current one; other sessions end.",
    )

    create_customer = strawberry.mutation(
        resolver=create_customer.create_customer,
        extensions=allowed(SALES),
    )
    create_work_order = strawberry.mutation(
        resolver=create_work_order.create_work_order,
        extensions=allowed(SALES),
    )
    update_work_order_quote = strawberry.mutation(
        resolver=update_work_order_quote.update_work_order_quote,
        extensions=allowed(SALES),
    )
    cancel_work_order = strawberry.mutation(
        resolver=cancel_work_order.cancel_work_order,
        extensions=allowed(SALES),
    )

    post_ledger_entry = strawberry.mutation(
        resolver=post_ledger_entry.post_ledger_entry,
        extensions=allowed(READS_LEDGER),
        description="Accounts: append an entry to a customer's ledger (never edited; a "
        "correction is a new entry).",
    )

    start_task = strawberry.mutation(resolver=tasks.start_task, extensions=allowed(STAFF))
    finish_task = strawberry.mutation(resolver=tasks.finish_task, extensions=allowed(STAFF))
    release_task = strawberry.mutation(resolver=tasks.release_task, extensions=allowed(ADMINS))
    complete_task = strawberry.mutation(
        resolver=tasks.complete_task,
        extensions=allowed(ADMINS),
        description="Admin override: complete a PENDING or STARTED task, with a reason.",
    )
    reopen_task = strawberry.mutation(resolver=tasks.reopen_task, extensions=allowed(ADMINS))

    create_api_token = strawberry.mutation(
        resolver=tokens.create_api_token,
        extensions=allowed(SESSION),
        description="A token for an integrator, acting as the caller, made from a signed-in "
        "session with the caller's password again; it expires at expiresAt (90 days ahead "
        "when omitted, at most PRESSROOM_API_TOKEN_MAX_DAYS).",
    )
    create_display_token = strawberry.mutation(
        resolver=tokens.create_display_token,
        extensions=allowed(SESSION, ADMINS),
        description="A read-only token for wall displays, limited to the named queues; made "
        "from a signed-in session.",
    )
    revoke_token = strawberry.mutation(
        resolver=tokens.revoke_token,
        extensions=allowed(STAFF),
        description="Admins revoke any token, others their own. Live connections using it close.",
    )
