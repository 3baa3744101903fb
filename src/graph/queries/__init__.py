"""The Query type: its fields live in modules by what they read, each field's access rule
declared there, on the field itself (graph/permissions.py defines the rules once)."""

import strawberry

from graph.queries import accounts, figures, floor, integrations, nodes, orders, shop


@strawberry.type(description="What can be read. Each field ends with who may ask for it.")
class Query:
    node = nodes.node
    nodes = nodes.nodes
    me = accounts.me
    api_version = shop.api_version
    departments = shop.departments
    department_kinds = shop.department_kinds
    users = accounts.users
    my_tokens = accounts.my_tokens
    tokens = accounts.tokens
    webhook_event_kinds = integrations.webhook_event_kinds
    payment_inboxes = integrations.payment_inboxes
    webhooks = integrations.webhooks
    webhook_deliveries = integrations.webhook_deliveries
    mail_messages = integrations.mail_messages
    work_order = orders.work_order
    work_orders = orders.work_orders
    queue = floor.queue
    awaiting_proof = floor.awaiting_proof
    stale_tasks = floor.stale_tasks
    scan = floor.scan
    department_flow = figures.department_flow
    flow_summary = figures.flow_summary
    receivables_ageing = figures.receivables_ageing
    customers = orders.customers
    customer = orders.customer
