"""The Mutation type: each mutation lives in its own module, its access rule declared
there, on the mutation itself (graph/permissions.py defines the rules once)."""

import strawberry

from graph.mutations import (
    account,
    add_work_order_department,
    cancel_work_order,
    charge_work_order_quote,
    create_customer,
    create_department,
    create_payment_inbox,
    create_webhook,
    create_work_order,
    customer_links,
    delete_payment_inbox,
    delete_webhook,
    hold_work_order,
    login,
    people,
    post_ledger_entry,
    proof_decisions,
    redeliver_webhook_delivery,
    remove_work_order_department,
    reschedule_work_order,
    resend_mail_message,
    resume_work_order,
    rotate_payment_inbox_secret,
    rotate_webhook_secret,
    set_department_follows,
    set_department_needs_approved_proof,
    tasks,
    tokens,
    update_customer,
    update_payment_inbox,
    update_webhook,
    update_work_order,
    update_work_order_quote,
    upload_proof,
    user_access,
)


@strawberry.type(description="What can be changed. Each mutation ends with who may use it.")
class Mutation:
    login = login.login
    create_department = create_department.create_department
    set_department_follows = set_department_follows.set_department_follows
    set_department_needs_approved_proof = (
        set_department_needs_approved_proof.set_department_needs_approved_proof
    )
    create_user = people.create_user
    set_user_departments = people.set_user_departments
    deactivate_user = user_access.deactivate_user
    reactivate_user = user_access.reactivate_user
    set_password = user_access.set_password
    logout = account.logout
    change_password = account.change_password
    create_customer = create_customer.create_customer
    update_customer = update_customer.update_customer
    create_work_order = create_work_order.create_work_order
    update_work_order = update_work_order.update_work_order
    update_work_order_quote = update_work_order_quote.update_work_order_quote
    add_work_order_department = add_work_order_department.add_work_order_department
    remove_work_order_department = remove_work_order_department.remove_work_order_department
    cancel_work_order = cancel_work_order.cancel_work_order
    reschedule_work_order = reschedule_work_order.reschedule_work_order
    hold_work_order = hold_work_order.hold_work_order
    resume_work_order = resume_work_order.resume_work_order
    post_ledger_entry = post_ledger_entry.post_ledger_entry
    charge_work_order_quote = charge_work_order_quote.charge_work_order_quote
    start_task = tasks.start_task
    finish_task = tasks.finish_task
    release_task = tasks.release_task
    complete_task = tasks.complete_task
    reopen_task = tasks.reopen_task
    create_api_token = tokens.create_api_token
    create_display_token = tokens.create_display_token
    revoke_token = tokens.revoke_token
    create_webhook = create_webhook.create_webhook
    update_webhook = update_webhook.update_webhook
    rotate_webhook_secret = rotate_webhook_secret.rotate_webhook_secret
    delete_webhook = delete_webhook.delete_webhook
    redeliver_webhook_delivery = redeliver_webhook_delivery.redeliver_webhook_delivery
    resend_mail_message = resend_mail_message.resend_mail_message
    create_payment_inbox = create_payment_inbox.create_payment_inbox
    create_customer_link = customer_links.create_customer_link
    revoke_customer_link = customer_links.revoke_customer_link
    update_payment_inbox = update_payment_inbox.update_payment_inbox
    rotate_payment_inbox_secret = rotate_payment_inbox_secret.rotate_payment_inbox_secret
    delete_payment_inbox = delete_payment_inbox.delete_payment_inbox
    upload_proof = upload_proof.upload_proof
    approve_proof = proof_decisions.approve_proof
    request_proof_changes = proof_decisions.request_proof_changes
