"""The Mutation type: each mutation lives in its own module, its access rule declared
there, on the mutation itself (graph/permissions.py defines the rules once)."""

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


@strawberry.type
class Mutation:
    login = login.login
    create_department = people.create_department
    create_user = people.create_user
    set_user_departments = people.set_user_departments
    deactivate_user = people.deactivate_user
    reactivate_user = people.reactivate_user
    set_password = people.set_password
    logout = account.logout
    change_password = account.change_password
    create_customer = create_customer.create_customer
    create_work_order = create_work_order.create_work_order
    update_work_order_quote = update_work_order_quote.update_work_order_quote
    cancel_work_order = cancel_work_order.cancel_work_order
    post_ledger_entry = post_ledger_entry.post_ledger_entry
    start_task = tasks.start_task
    finish_task = tasks.finish_task
    release_task = tasks.release_task
    complete_task = tasks.complete_task
    reopen_task = tasks.reopen_task
    create_api_token = tokens.create_api_token
    create_display_token = tokens.create_display_token
    revoke_token = tokens.revoke_token
