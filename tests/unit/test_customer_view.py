"""Where a job is, in a customer's words (domain/customer_view.py), case by case; and how
long a customer link works."""

from datetime import UTC, datetime, timedelta

import pytest

from domain.customer_view import JobFacts, JobTask, Stage, link_ends, stage
from domain.customer_words import ENGLISH, stage_key
from domain.enums import DepartmentKind, ProofStatus, TaskStatus, WorkOrderStatus

P, S, C, R = TaskStatus.PENDING, TaskStatus.STARTED, TaskStatus.COMPLETED, TaskStatus.REMOVED
ACTIVE = WorkOrderStatus.ACTIVE
WAITS, BACK = ProofStatus.PENDING, ProofStatus.CHANGES_REQUESTED
APPROVAL, PAUSED = "Waiting for your approval", "Paused: we will contact you"


def job(
    design: TaskStatus | None,
    press: TaskStatus | None,
    delivery: TaskStatus = P,
    *,
    status: WorkOrderStatus = ACTIVE,
    held: bool = False,
    transport: bool = False,
    proof: ProofStatus | None = None,
) -> JobFacts:
    tasks = [JobTask(DepartmentKind.DELIVERY, delivery)]
    if design is not None:
        tasks.append(JobTask(DepartmentKind.PRODUCTION, design, designs=True))
    if press is not None:
        tasks.append(JobTask(DepartmentKind.PRODUCTION, press))
    return JobFacts(status, held, transport, tasks, proof)


CASES = [
    ("nothing begun", job(P, P), "Received"),
    ("design started", job(S, P), "In design"),
    ("design done, no proof needed", job(C, P), "In production"),
    ("a proof waits for the customer", job(C, P, proof=WAITS), APPROVAL),
    ("a proof waits, before design is done", job(S, P, proof=WAITS), APPROVAL),
    ("changes asked for", job(C, P, proof=BACK), "In design"),
    ("changes asked for, nothing begun", job(P, P, proof=BACK), "In design"),
    ("approved, not yet printing", job(C, P, proof=ProofStatus.APPROVED), "In production"),
    ("approved, design skipped", job(None, P, proof=ProofStatus.APPROVED), "In production"),
    ("printing", job(C, S, proof=ProofStatus.APPROVED), "In production"),
    ("printing without design", job(None, S), "In production"),
    ("a newer version withdrew the last", job(C, P, proof=ProofStatus.WITHDRAWN), "In production"),
    ("made, for pickup", job(C, C), "Ready for pickup"),
    ("made, design removed", job(R, C), "Ready for pickup"),
    ("made, to be delivered", job(C, C, transport=True), "Ready for delivery"),
    ("on its way", job(C, C, S, transport=True), "Out for delivery"),
    ("being picked up", job(C, C, S), "Ready for pickup"),
    ("delivery-only order", job(None, None), "Ready for pickup"),
    ("completed", job(C, C, C, status=WorkOrderStatus.COMPLETED), "Delivered"),
    ("held", job(S, P, held=True), PAUSED),
    ("held with a proof waiting", job(C, P, held=True, proof=WAITS), PAUSED),
    ("cancelled", job(S, P, status=WorkOrderStatus.CANCELLED), "Cancelled"),
    ("cancelled while held", job(P, P, status=WorkOrderStatus.CANCELLED, held=True), "Cancelled"),
]  # fmt: skip


@pytest.mark.parametrize(("facts", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_where_the_job_is_in_the_customers_words(facts: JobFacts, words: str) -> None:
    assert ENGLISH[stage_key(stage(facts))] == words


def test_every_stage_has_words() -> None:
    assert all(stage_key(s) in ENGLISH for s in Stage)


ENDED = datetime(2027, 1, 1, tzinfo=UTC)
OWN = datetime(2027, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("expires_at", "status", "ended", "ends"),
    [
        (None, WorkOrderStatus.ACTIVE, ENDED, None),
        (None, WorkOrderStatus.COMPLETED, ENDED, ENDED + timedelta(days=60)),
        (None, WorkOrderStatus.CANCELLED, ENDED, ENDED + timedelta(days=60)),
        (OWN, WorkOrderStatus.ACTIVE, None, OWN),
        (OWN, WorkOrderStatus.COMPLETED, ENDED, OWN),
    ],
)
def test_a_link_ends_at_its_own_expiry_or_days_after_its_order_ends(
    expires_at: datetime | None, status: WorkOrderStatus, ended: datetime, ends: datetime | None
) -> None:
    assert link_ends(expires_at, status, ended, 60) == ends
