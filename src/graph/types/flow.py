"""Flow figures as clients see them (domain/flow.py; what counts: db/queries.sql,
department_flow and order_flow)."""

from datetime import date, datetime

import strawberry

from domain import flow
from graph.context import Info
from graph.loaders import now_or_later
from graph.types.departments import Department
from graph.types.loading import required


@strawberry.type(description="Durations in seconds over `count` tasks (or orders); null when none.")
class DurationStats:
    count: int = strawberry.field(
        description="How many tasks (or orders) were measured; 0 when none."
    )
    p50: float | None = strawberry.field(description="The median.")
    p85: float | None = strawberry.field(description="The 85th percentile, interpolated.")
    max: float | None = strawberry.field(description="The longest.")

    @classmethod
    def of(cls, stats: flow.DurationStats) -> "DurationStats":
        return cls(count=stats.count, p50=stats.p50, p85=stats.p85, max=stats.max)


@strawberry.type(description="Tasks completed on one calendar day (PRESSROOM_TIME_ZONE).")
class DayCount:
    day: date = strawberry.field(description="The calendar day.")
    completed: int = strawberry.field(description="How many tasks were completed on it.")


@strawberry.type(
    description="How work flowed through one department in a window: tasks count once, by "
    "their final start and by their last completion in it; tasks of cancelled orders and "
    "removed tasks not at all."
)
class DepartmentFlow:
    started: int = strawberry.field(description="Tasks whose final start is in the window.")
    completed: int = strawberry.field(description="Tasks whose last completion is in it.")
    wait_time: DurationStats = strawberry.field(
        description="Of the tasks started: from when each became available (created open, "
        "its gate opened, or reopened) to its final start; a release keeps the clock running."
    )
    work_time: DurationStats = strawberry.field(
        description="Of the tasks completed from STARTED: from the start to the completion."
    )
    wip: int = strawberry.field(description="Tasks started now (active orders).")
    waiting: int = strawberry.field(
        description="Tasks available and pending now (active orders not on hold)."
    )
    per_day: list[DayCount] = strawberry.field(
        description="Tasks completed on each day the window touches, in order."
    )
    _department_id: strawberry.Private[int]

    @strawberry.field(description="The department measured.")
    def department(self, info: Info) -> Department:
        return now_or_later(
            info.context.loaders.department.load(self._department_id),
            lambda r: required(r, Department.of),
        )

    @classmethod
    def of(cls, figures: flow.DepartmentFlow) -> "DepartmentFlow":
        return cls(
            started=figures.started,
            completed=figures.completed,
            wait_time=DurationStats.of(figures.wait),
            work_time=DurationStats.of(figures.work),
            wip=figures.wip,
            waiting=figures.waiting,
            per_day=[DayCount(day=day, completed=n) for day, n in figures.per_day],
            _department_id=figures.department_id,
        )


@strawberry.type(
    description="Work orders with a due date completed in the window, and the active ones "
    "late now: the rate counts an order still open past its due date as late."
)
class OnTime:
    completed: int = strawberry.field(
        description="Work orders with a due date whose last completion is in the window."
    )
    on_time: int = strawberry.field(description="Of those, completed by their due date.")
    late_now: int = strawberry.field(
        description="Active work orders past their due date now, due before the window's end."
    )
    rate: float | None = strawberry.field(
        description="onTime / (completed + lateNow); null when both are 0."
    )


@strawberry.type(description="Every department's flow in one window, and the orders'.")
class FlowSummary:
    start: datetime = strawberry.field(
        name="from", description="The start of the window, included."
    )
    end: datetime = strawberry.field(name="to", description="The end of the window, excluded.")
    departments: list[DepartmentFlow] = strawberry.field(
        description="The departments with a queue (production and delivery), in route order."
    )
    on_time: OnTime = strawberry.field(
        description="Of the orders due in the window: how many were completed on time."
    )
    lead_time: DurationStats = strawberry.field(
        description="Work orders completed in the window: created to completed."
    )
    customer_wait_time: DurationStats = strawberry.field(
        description="Of the work orders completed in the window that had proofs: how long "
        "they waited for the customer, each proof version from its upload to the "
        "customer's decision (or the next version, or the completion), summed per order."
    )

    @classmethod
    def of(
        cls, window: flow.Window, departments: list[flow.DepartmentFlow], orders: flow.OrderFlow
    ) -> "FlowSummary":
        return cls(
            start=window.start,
            end=window.end,
            departments=[DepartmentFlow.of(d) for d in departments],
            on_time=OnTime(
                completed=orders.completed_with_due,
                on_time=orders.on_time,
                late_now=orders.late_now,
                rate=orders.on_time_rate,
            ),
            lead_time=DurationStats.of(orders.lead),
            customer_wait_time=DurationStats.of(orders.customer_wait),
        )
