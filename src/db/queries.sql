-- Every SQL statement of Pressroom, named. Loaded by db/queries.py.
-- Statements that change state write their history and event rows in the same
-- statement (data-modifying CTEs), so a change, its history and its event
-- commit together or not at all.

-- name: transition_task
-- The only writer of department_tasks.status. Locks the work order first, so a
-- racing cancel or a second finisher of the same order queues behind us and then
-- sees our commit; then locks the task, and moves it only if every guard of the
-- transition table still holds on the latest committed row.
WITH wo AS (
    SELECT w.id
    FROM work_orders w
    WHERE w.id = (SELECT work_order_id FROM department_tasks WHERE id = :task_id)
      AND w.status = ANY(CAST(:order_statuses AS text[]))
      AND NOT w.imported_closed
      AND (NOT :requires_unheld OR w.held_at IS NULL)
    FOR NO KEY UPDATE
), old AS (
    SELECT t.id, t.status
    FROM department_tasks t
    JOIN wo ON wo.id = t.work_order_id
    WHERE t.id = :task_id
    FOR NO KEY UPDATE OF t
), moved AS (
    UPDATE department_tasks t SET
        status = CAST(:target AS text),
        -- Written by START alone (and cleared on the way back to PENDING): an admin who
        -- completes a pending task picked nothing up; the history names them.
        picked_up_by = CASE WHEN :target = 'STARTED' THEN CAST(:actor_id AS bigint)
                            WHEN :target = 'PENDING' THEN NULL
                            ELSE t.picked_up_by END,
        started_at = CASE WHEN :target = 'PENDING' THEN NULL
                          WHEN :target = 'STARTED' THEN pressroom_now()
                          WHEN :target = 'COMPLETED' THEN coalesce(t.started_at, pressroom_now())
                          ELSE t.started_at END,
        completed_at = CASE WHEN :target = 'COMPLETED' THEN pressroom_now() END,
        -- The flow projection, as rebuild_flow derives it from history: a START waited
        -- since the task last became available (its gate's opening, or its creation) or
        -- was reopened; a completion from STARTED worked since that START.
        last_started_at = CASE WHEN :action = 'START' THEN pressroom_now()
                               ELSE t.last_started_at END,
        waited_seconds = CASE WHEN :action = 'START' THEN CAST(extract(epoch FROM
                                  pressroom_now() - greatest(t.available_at, (
                                      SELECT max(r.occurred_at) FROM task_transitions r
                                      WHERE r.task_id = t.id AND r.action = 'REOPEN')))
                                  AS double precision)
                              ELSE t.waited_seconds END,
        last_completed_at = CASE WHEN :target = 'COMPLETED' THEN pressroom_now()
                                 ELSE t.last_completed_at END,
        worked_seconds = CASE WHEN :target <> 'COMPLETED' THEN t.worked_seconds
                              WHEN old.status = 'STARTED' THEN CAST(extract(epoch FROM
                                  pressroom_now() - t.last_started_at) AS double precision)
                         END,
        -- A removed task is in no queue.
        available_at = CASE WHEN :target = 'REMOVED' THEN NULL ELSE t.available_at END,
        version = t.version + 1,
        updated_at = pressroom_now()
    FROM old
    WHERE t.id = old.id
      AND t.status = ANY(CAST(:sources AS text[]))
      AND (NOT :requires_available OR t.available_at <= now())
      AND (NOT :requires_member OR EXISTS (
            SELECT 1 FROM user_departments ud
            WHERE ud.user_id = :actor_id AND ud.department_id = t.department_id))
      AND (NOT :requires_holder OR t.picked_up_by = :actor_id)
      AND (NOT :requires_production OR EXISTS (
            SELECT 1 FROM departments d WHERE d.id = t.department_id AND d.kind = 'PRODUCTION'))
    RETURNING t.*, old.status AS from_status, task_event_payload(t) AS event_payload
), history AS (
    INSERT INTO task_transitions (task_id, from_status, to_status, action, actor_id, reason)
    SELECT id, from_status, status, :action, :actor_id, :reason FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT 'TASK_CHANGED', work_order_id, department_id, event_payload || jsonb_build_object(
        'action', CAST(:action AS text), 'fromStatus', from_status, 'toStatus', status,
        'actorId', CAST(:actor_id AS bigint))
    FROM moved
), stale_timer AS (
    -- A start arms its task's TASK_STALE timer (db/timers.py); any later move makes it moot.
    INSERT INTO timers (purpose, work_order_id, task_id, armed_for, due_at)
    SELECT 'TASK_STALE', work_order_id, id, started_at,
           started_at + CAST(:stale_seconds AS double precision) * interval '1 second'
    FROM moved WHERE status = 'STARTED'
    ON CONFLICT DO NOTHING
)
SELECT * FROM moved

-- name: task_state
-- Re-read after a guarded write matched nothing, for domain.transitions.judge; with what
-- domain.routing.awaits_proof reads (the order's latest proof version's status).
SELECT t.status, t.picked_up_by, u.name AS picked_up_by_name,
       coalesce(t.available_at <= now(), false) AS available,
       w.status AS order_status, w.imported_closed, w.held_at IS NOT NULL AS held,
       EXISTS (SELECT 1 FROM user_departments ud
               WHERE ud.user_id = :actor_id AND ud.department_id = t.department_id) AS is_member,
       d.kind = 'PRODUCTION' AS production,
       w.proof_required, d.needs_approved_proof,
       (SELECT p.status FROM proofs p WHERE p.work_order_id = w.id
        ORDER BY p.version DESC LIMIT 1) AS latest_proof
FROM department_tasks t
JOIN work_orders w ON w.id = t.work_order_id
JOIN departments d ON d.id = t.department_id
LEFT JOIN users u ON u.id = t.picked_up_by
WHERE t.id = :task_id

-- name: settlement_facts
-- Read under the work order lock taken by transition_task, in a statement of its
-- own so that its snapshot includes every transition committed before ours; with the
-- routing (every department's follows, as pairs), read with the tasks; and what
-- domain.routing.awaits_proof reads (the order's latest proof version's status), so an
-- approval or a new version decided under the same lock is seen too.
SELECT w.status AS order_status, t.department_id, t.status, d.kind, d.gates_delivery,
       t.available_at IS NOT NULL AS gate_open, r.follows_from, r.follows_to,
       w.proof_required, d.needs_approved_proof, lp.status AS latest_proof
FROM work_orders w
JOIN department_tasks t ON t.work_order_id = w.id
JOIN departments d ON d.id = t.department_id
CROSS JOIN (
    SELECT array_agg(o.id ORDER BY o.id, f.follows_id) AS follows_from,
           array_agg(f.follows_id ORDER BY o.id, f.follows_id) AS follows_to
    FROM departments o CROSS JOIN LATERAL unnest(o.follows) AS f(follows_id)
) r
LEFT JOIN LATERAL (
    SELECT p.status FROM proofs p WHERE p.work_order_id = w.id ORDER BY p.version DESC LIMIT 1
) lp ON true
WHERE w.id = :work_order_id

-- name: set_gates
-- Opens (or closes) the gates of an order's tasks of the given departments: the one
-- writer of availableAt after an order's creation (domain.workflow.settle decides). Each
-- with its event (the delivery task's are the delivery gate's kinds) and its history row,
-- credited to no one: the system moved it (domain.transitions.SYSTEM_MOVES). A task of
-- :made_ids was made in this transaction: in its queue from its first moment, it gets
-- no history row (its gate never was closed for anyone to see).
WITH moved AS (
    UPDATE department_tasks t SET
        available_at = CASE WHEN :open THEN pressroom_now() END,
        version = t.version + 1,
        updated_at = pressroom_now()
    FROM departments d
    WHERE t.work_order_id = :work_order_id AND d.id = t.department_id
      AND t.department_id = ANY(CAST(:department_ids AS bigint[]))
      AND (t.available_at IS NULL) = :open
    RETURNING t.*, d.kind AS department_kind, task_event_payload(t) AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id,
                                        reason, department_id)
    SELECT work_order_id,
           CASE WHEN :open THEN 'OPEN_GATE' ELSE 'CLOSE_GATE' END,
           CASE WHEN :open THEN 'CLOSED' ELSE 'OPEN' END,
           CASE WHEN :open THEN 'OPEN' ELSE 'CLOSED' END,
           NULL, :reason, department_id
    FROM moved
    WHERE department_id <> ALL(CAST(:made_ids AS bigint[]))
    ORDER BY department_id
), event AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT CASE WHEN department_kind = 'DELIVERY'
                THEN CASE WHEN :open THEN 'DELIVERY_GATE_OPENED' ELSE 'DELIVERY_GATE_CLOSED' END
                ELSE CASE WHEN :open THEN 'TASK_GATE_OPENED' ELSE 'TASK_GATE_CLOSED' END END,
           work_order_id, department_id, event_payload
    FROM moved ORDER BY department_id
)
SELECT * FROM moved

-- name: transition_work_order
-- The only writer of work_orders.status.
WITH moved AS (
    UPDATE work_orders w SET
        status = CAST(:target AS text), version = w.version + 1, updated_at = pressroom_now(),
        last_completed_at = CASE WHEN :target = 'COMPLETED' THEN pressroom_now()
                                 ELSE w.last_completed_at END
    WHERE w.id = :work_order_id AND w.status = :source
    RETURNING w.*
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id, reason)
    SELECT id, :action, :source, status, :actor_id, :reason FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CHANGED', id, jsonb_build_object(
        'workOrderId', id, 'action', CAST(:action AS text), 'fromStatus', CAST(:source AS text),
        'toStatus', status, 'version', version)
    FROM moved
)
SELECT * FROM moved

-- name: lock_work_order
SELECT id, status, version, imported_closed, due_at, priority, held_at, customer_id, details,
       needs_installation, needs_transport, needs_repair, proof_required
FROM work_orders WHERE id = :work_order_id FOR NO KEY UPDATE

-- name: started_task_ids
SELECT id FROM department_tasks
WHERE work_order_id = :work_order_id AND status = 'STARTED'
ORDER BY id

-- name: withdraw_pending_tasks
-- Cancelling takes the order's pending tasks out of every queue: one event per task
-- so each department's queue subscribers hear of it.
INSERT INTO events (type, work_order_id, department_id, payload)
SELECT 'TASK_WITHDRAWN', t.work_order_id, t.department_id, task_event_payload(t)
FROM department_tasks t
WHERE t.work_order_id = :work_order_id AND t.status = 'PENDING'

-- name: insert_work_order
-- Inserts nothing when the order number or the idempotency key is taken; a concurrent
-- create with the same key waits on the unique index, and one inserts.
WITH created AS (
    INSERT INTO work_orders (order_number, customer_id, details, needs_installation,
                             needs_transport, needs_repair, quote_minor, quote_currency,
                             created_by, due_at, priority, idempotency_key,
                             idempotency_fingerprint, proof_required)
    VALUES (coalesce(CAST(:order_number AS text),
                     'WO-' || lpad(nextval('work_order_number_seq')::text, 6, '0')),
            :customer_id, CAST(:details AS jsonb), :needs_installation, :needs_transport,
            :needs_repair, :quote_minor, :quote_currency, :created_by,
            CAST(:due_at AS timestamptz), :priority, :idempotency_key,
            :idempotency_fingerprint, :proof_required)
    ON CONFLICT DO NOTHING
    RETURNING *, work_order_created_payload(work_orders) AS event_payload
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CREATED', id, event_payload FROM created
)
SELECT * FROM created

-- name: work_order_by_key
SELECT id, idempotency_fingerprint FROM work_orders WHERE idempotency_key = :idempotency_key

-- name: insert_tasks
-- The tasks of :open_ids wait for nothing (domain.workflow.opens_at_creation): in their
-- queues from the start. Every other gate is settled after. A department the order has
-- already gets no second task.
WITH created AS (
    INSERT INTO department_tasks (work_order_id, department_id, available_at)
    SELECT :work_order_id, d.id,
           CASE WHEN d.id = ANY(CAST(:open_ids AS bigint[])) THEN pressroom_now() END
    FROM departments d
    WHERE d.id = ANY(CAST(:department_ids AS bigint[]))
    ORDER BY d.id
    ON CONFLICT DO NOTHING
    RETURNING *, task_event_payload(department_tasks) AS event_payload
), event AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT 'TASK_CREATED', work_order_id, department_id, event_payload
    FROM created
)
SELECT * FROM created ORDER BY id

-- name: lock_work_order_quote
-- Read under the row lock, so the history row names the quote this update replaces.
SELECT id, status, version, quote_minor, quote_currency, imported_closed
FROM work_orders WHERE id = :work_order_id
FOR NO KEY UPDATE

-- name: update_quote
-- Runs under lock_work_order_quote's lock. Quotes never post to the ledger; a change
-- is a QUOTE_CHANGED history row (old and new money, actor) and an event.
WITH moved AS (
    UPDATE work_orders SET
        quote_minor = :quote_minor, quote_currency = :quote_currency,
        version = version + 1, updated_at = pressroom_now()
    WHERE id = :work_order_id
    RETURNING *, work_order_changed_payload(work_orders, 'quote') AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id)
    SELECT id, 'QUOTE_CHANGED', :from_quote, :to_quote, :actor_id FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CHANGED', id, event_payload FROM moved
)
SELECT * FROM moved

-- name: update_work_order_details
-- Runs under lock_work_order's lock, with what changed (domain.corrections): a
-- DETAILS_CHANGED history row (the changed parts, and their two texts) and an event. The caller settles the gates after (the
-- proof requirement moves them).
WITH moved AS (
    UPDATE work_orders SET
        details = CAST(:details AS jsonb), needs_installation = :needs_installation,
        needs_transport = :needs_transport, needs_repair = :needs_repair,
        customer_id = :customer_id, proof_required = :proof_required,
        version = version + 1, updated_at = pressroom_now()
    WHERE id = :work_order_id
    RETURNING *, work_order_changed_payload(work_orders, 'details') AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id,
                                        changes)
    SELECT id, 'DETAILS_CHANGED', :from_state, :to_state, :actor_id, CAST(:changes AS jsonb)
    FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CHANGED', id, event_payload FROM moved
)
SELECT * FROM moved

-- name: change_work_order_departments
-- Runs under lock_work_order's lock, after the task was added or removed: the order's
-- DEPARTMENT_ADDED or DEPARTMENT_REMOVED history row (naming the department) and an event.
WITH moved AS (
    UPDATE work_orders SET version = version + 1, updated_at = pressroom_now()
    WHERE id = :work_order_id
    RETURNING *, work_order_changed_payload(work_orders, 'departments') AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id,
                                        reason, department_id)
    SELECT id, :action, :from_state, :to_state, :actor_id, :reason, :department_id FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CHANGED', id, event_payload FROM moved
)
SELECT * FROM moved

-- name: task_of_department
-- The order's task of a department, but for removed ones.
SELECT id FROM department_tasks
WHERE work_order_id = :work_order_id AND department_id = :department_id AND status <> 'REMOVED'

-- name: reschedule_work_order
-- Runs under lock_work_order's lock. History names the old and new schedule; an event
-- on the order (with the due date it had and has: mail tells a customer of a later one),
-- and one per task in a queue so that every queue re-sorts.
WITH moved AS (
    UPDATE work_orders SET
        due_at = CAST(:due_at AS timestamptz), priority = :priority,
        version = version + 1, updated_at = pressroom_now()
    WHERE id = :work_order_id
      AND (due_at IS DISTINCT FROM CAST(:due_at AS timestamptz) OR priority <> :priority)
    RETURNING *, work_order_changed_payload(work_orders, 'schedule')
                 || jsonb_build_object('dueAt', due_at,
                                       'previousDueAt', CAST(:previous_due_at AS timestamptz))
                 AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id)
    SELECT id, 'SCHEDULE_CHANGED', :from_schedule, :to_schedule, :actor_id FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CHANGED', id, event_payload FROM moved
), requeued AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT 'TASK_REQUEUED', t.work_order_id, t.department_id, task_event_payload(t)
    FROM department_tasks t JOIN moved ON moved.id = t.work_order_id
    WHERE t.status = 'PENDING' AND t.available_at IS NOT NULL
)
SELECT * FROM moved

-- name: hold_work_order
-- Runs under lock_work_order's lock. The order stays ACTIVE; its pending tasks leave
-- every queue (an event each), STARTED ones stay and may finish.
WITH moved AS (
    UPDATE work_orders SET
        held_at = pressroom_now(), held_by = :actor_id, hold_reason = :reason,
        version = version + 1, updated_at = pressroom_now()
    WHERE id = :work_order_id AND held_at IS NULL
    RETURNING *, work_order_changed_payload(work_orders, 'hold') AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id,
                                        reason)
    SELECT id, 'HELD', 'RUNNING', 'HELD', :actor_id, :reason FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CHANGED', id, event_payload FROM moved
), withdrawn AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT 'TASK_WITHDRAWN', t.work_order_id, t.department_id, task_event_payload(t)
    FROM department_tasks t JOIN moved ON moved.id = t.work_order_id
    WHERE t.status = 'PENDING' AND t.available_at IS NOT NULL
)
SELECT * FROM moved

-- name: resume_work_order
-- Runs under lock_work_order's lock. The pending tasks return to their places (an event
-- each).
WITH moved AS (
    UPDATE work_orders SET
        held_at = NULL, held_by = NULL, hold_reason = NULL,
        version = version + 1, updated_at = pressroom_now()
    WHERE id = :work_order_id AND held_at IS NOT NULL
    RETURNING *, work_order_changed_payload(work_orders, 'hold') AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id)
    SELECT id, 'RESUMED', 'HELD', 'RUNNING', :actor_id FROM moved
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CHANGED', id, event_payload FROM moved
), requeued AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT 'TASK_REQUEUED', t.work_order_id, t.department_id, task_event_payload(t)
    FROM department_tasks t JOIN moved ON moved.id = t.work_order_id
    WHERE t.status = 'PENDING' AND t.available_at IS NOT NULL
)
SELECT * FROM moved

-- name: arm_order_timers
-- A work order's WORK_ORDER_DUE_SOON and WORK_ORDER_LATE timers for its due date, in the
-- transaction that set it; unfired ones for another due date go. Once per due date: a
-- date whose timers fired already arms nothing again. Due soon only while the date is
-- ahead. A timer due within the minute may come before a sleeping loop's next look:
-- the NOTIFY (sent at commit) wakes every process's loop (db/timers.py).
WITH gone AS (
    DELETE FROM timers
    WHERE work_order_id = :work_order_id AND task_id IS NULL AND fired_at IS NULL
      AND armed_for IS DISTINCT FROM CAST(:due_at AS timestamptz)
), armed AS (
    INSERT INTO timers (purpose, work_order_id, armed_for, due_at)
    SELECT v.purpose, :work_order_id, CAST(:due_at AS timestamptz), v.due_at
    FROM (VALUES
        ('WORK_ORDER_DUE_SOON', CAST(:due_at AS timestamptz)
                                - CAST(:soon_seconds AS double precision) * interval '1 second'),
        ('WORK_ORDER_LATE', CAST(:due_at AS timestamptz))
    ) AS v (purpose, due_at)
    WHERE CAST(:due_at AS timestamptz) IS NOT NULL
      AND (v.purpose = 'WORK_ORDER_LATE' OR CAST(:due_at AS timestamptz) > now())
    ON CONFLICT DO NOTHING
    RETURNING due_at
)
SELECT pg_notify('pressroom_timers', '')
FROM (SELECT 1 FROM armed WHERE due_at < now() + interval '1 minute' LIMIT 1) AS soon

-- name: fire_due_timers
-- Claims up to :limit due timers (other processes skip the claimed ones) and fires each
-- in this transaction: marked fired, and its events written if its subject still is as
-- it was armed for (an ACTIVE order still due then; a task still STARTED since then).
-- An order's timer reaches the order and each of its tasks in a queue; the delivery
-- task's event is tagged `gate` for deliveryGateEvents (db/fanout.py).
WITH due AS (
    SELECT id FROM timers
    WHERE fired_at IS NULL AND due_at <= now()
    ORDER BY due_at, id
    LIMIT :limit
    FOR UPDATE SKIP LOCKED
), fired AS (
    UPDATE timers t SET fired_at = pressroom_now() FROM due WHERE t.id = due.id RETURNING t.*
), orders AS (
    SELECT f.id AS timer_id, f.purpose, w.id, w.due_at, w.status, w.version
    FROM fired f JOIN work_orders w ON w.id = f.work_order_id
    WHERE f.task_id IS NULL AND w.status = 'ACTIVE' AND w.due_at = f.armed_for
), order_events AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT purpose, id, jsonb_build_object(
        'workOrderId', id, 'dueAt', due_at, 'status', status, 'version', version)
    FROM orders
), task_events AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT o.purpose, t.work_order_id, t.department_id,
           task_event_payload(t) || CASE WHEN d.kind = 'DELIVERY'
                                         THEN '{"gate": true}'::jsonb ELSE '{}' END
    FROM orders o JOIN department_tasks t ON t.work_order_id = o.id
    JOIN departments d ON d.id = t.department_id
    WHERE t.status = 'STARTED' OR (t.status = 'PENDING' AND t.available_at IS NOT NULL)
), stale_events AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT 'TASK_STALE', t.work_order_id, t.department_id, task_event_payload(t)
    FROM fired f JOIN department_tasks t ON t.id = f.task_id
    WHERE f.purpose = 'TASK_STALE' AND t.status = 'STARTED' AND t.started_at = f.armed_for
)
SELECT (SELECT count(*) FROM fired) AS fired,
       -- Seconds (by the database's clock) until the next timer falls due, if any.
       (SELECT extract(epoch FROM min(due_at) - now()) FROM timers
        WHERE fired_at IS NULL AND due_at > now()) AS next_in

-- name: stale_tasks_page
-- STARTED tasks whose TASK_STALE timer fired for their current start: untouched since.
-- Keyset on id; :backward reads from :after_id towards the start (pagination.Window).
SELECT t.* FROM department_tasks t
JOIN timers m ON m.task_id = t.id AND m.purpose = 'TASK_STALE' AND m.armed_for = t.started_at
WHERE t.status = 'STARTED' AND m.fired_at IS NOT NULL
  AND (CAST(:after_id AS bigint) IS NULL
       OR CASE WHEN :backward THEN t.id < :after_id ELSE t.id > :after_id END)
ORDER BY CASE WHEN :backward THEN t.id END DESC, t.id
LIMIT :limit

-- name: work_order_status
SELECT id, status, version FROM work_orders WHERE id = :work_order_id

-- name: insert_department
INSERT INTO departments (code, name, kind, gates_delivery, needs_approved_proof)
VALUES (:code, :name, :kind, :gates_delivery, :needs_approved_proof)
ON CONFLICT DO NOTHING
RETURNING *

-- name: lock_departments
-- Routing changes one at a time: each checks for loops against the last one committed.
-- NO KEY: a new order's tasks (their key share on departments) are not held up.
SELECT * FROM departments ORDER BY id FOR NO KEY UPDATE

-- name: set_department_follows
UPDATE departments SET follows = CAST(:follows AS bigint[]) WHERE id = :department_id
RETURNING *

-- name: set_department_needs_approved_proof
UPDATE departments SET needs_approved_proof = :needs_approved_proof WHERE id = :department_id
RETURNING *

-- name: routed_work_orders
-- The orders whose gates a routing change may move: every open one, oldest first.
SELECT id FROM work_orders WHERE status = 'ACTIVE' AND NOT imported_closed ORDER BY id

-- name: ping
SELECT 1

-- name: departments_all
SELECT * FROM departments ORDER BY kind, code

-- name: insert_user
-- Inserts nothing when the email or the idempotency key is taken.
INSERT INTO users (email, name, password_hash, is_admin, idempotency_key,
                   idempotency_fingerprint)
VALUES (:email, :name, :password_hash, :is_admin, :idempotency_key, :idempotency_fingerprint)
ON CONFLICT DO NOTHING
RETURNING *

-- name: user_by_key
SELECT id, idempotency_fingerprint FROM users WHERE idempotency_key = :idempotency_key

-- name: user_by_email
-- :email as domain.validation.email() normalises it, the form users.email is stored in.
SELECT * FROM users WHERE email = :email

-- name: promote_user
-- Only ever grants admin: re-running create-user or a migration never demotes anyone.
UPDATE users SET is_admin = is_admin OR :is_admin,
                 password_hash = coalesce(CAST(:password_hash AS text), password_hash),
                 name = coalesce(CAST(:name AS text), name)
WHERE id = :user_id
RETURNING *

-- name: replace_memberships
-- With an event: every process checks that user's live subscriptions again.
WITH gone AS (
    DELETE FROM user_departments
    WHERE user_id = :user_id AND department_id <> ALL(CAST(:department_ids AS bigint[]))
), added AS (
    INSERT INTO user_departments (user_id, department_id)
    SELECT :user_id, unnest(CAST(:department_ids AS bigint[]))
    ON CONFLICT DO NOTHING
)
INSERT INTO events (type, payload)
VALUES ('USER_ACCESS_CHANGED',
        jsonb_build_object('userId', CAST(:user_id AS bigint), 'change', 'MEMBERSHIP'))

-- name: set_user_active
WITH moved AS (
    UPDATE users SET is_active = :active
    WHERE id = :user_id AND is_active <> :active
    RETURNING *
), event AS (
    INSERT INTO events (type, payload)
    SELECT 'USER_ACCESS_CHANGED', jsonb_build_object(
        'userId', id, 'change', CASE WHEN is_active THEN 'REACTIVATED' ELSE 'DEACTIVATED' END)
    FROM moved
)
SELECT * FROM moved

-- name: set_password
UPDATE users SET password_hash = :password_hash WHERE id = :user_id RETURNING *

-- name: add_memberships
INSERT INTO user_departments (user_id, department_id)
SELECT :user_id, unnest(CAST(:department_ids AS bigint[]))
ON CONFLICT DO NOTHING

-- name: insert_token
INSERT INTO tokens (kind, name, token_hash, user_id, department_ids, expires_at)
VALUES (:kind, :name, :token_hash, :user_id, CAST(:department_ids AS bigint[]),
        coalesce(CAST(:expires_at AS timestamptz),
                 now() + CAST(:ttl_seconds AS integer) * interval '1 second'))
RETURNING *

-- name: authenticate
-- A live token and who it acts as, by its secret's hash.
SELECT tk.id AS token_id, tk.kind, tk.department_ids AS display_department_ids,
       tk.expires_at, u.id AS user_id, u.is_admin,
       coalesce(array_agg(ud.department_id ORDER BY ud.department_id)
                FILTER (WHERE ud.department_id IS NOT NULL), '{}') AS member_department_ids,
       -- Kinds never change, so rules by kind (Sales, Accounts) need no further read.
       coalesce(array_agg(DISTINCT d.kind) FILTER (WHERE d.kind IS NOT NULL), '{}')
           AS member_department_kinds
FROM tokens tk
JOIN users u ON u.id = tk.user_id
LEFT JOIN user_departments ud ON ud.user_id = u.id
LEFT JOIN departments d ON d.id = ud.department_id
WHERE tk.token_hash = :token_hash
  AND tk.revoked_at IS NULL
  AND (tk.expires_at IS NULL OR tk.expires_at > now())
  AND u.is_active
GROUP BY tk.id, u.id

-- name: insert_customer
-- Inserts nothing when the idempotency key is taken.
INSERT INTO customers (name, created_by, contact_name, email, phone, address_lines, postcode,
                       city, country, notes, receives_email, idempotency_key,
                       idempotency_fingerprint)
VALUES (:name, :created_by, :contact_name, :email, :phone, CAST(:address_lines AS text[]),
        :postcode, :city, :country, :notes, :receives_email, :idempotency_key,
        :idempotency_fingerprint)
ON CONFLICT (idempotency_key) DO NOTHING
RETURNING *

-- name: customer_by_key
SELECT id, idempotency_fingerprint FROM customers WHERE idempotency_key = :idempotency_key

-- name: lock_customer
SELECT * FROM customers WHERE id = :customer_id FOR NO KEY UPDATE

-- name: update_customer
UPDATE customers SET
    name = :name, contact_name = :contact_name, email = :email, phone = :phone,
    address_lines = CAST(:address_lines AS text[]), postcode = :postcode, city = :city,
    country = :country, notes = :notes, receives_email = :receives_email
WHERE id = :customer_id
RETURNING *

-- name: customer_exists
SELECT id FROM customers WHERE id = :customer_id

-- name: departments_by_id
SELECT * FROM departments WHERE id = ANY(CAST(:ids AS bigint[]))

-- name: users_by_id
SELECT * FROM users WHERE id = ANY(CAST(:ids AS bigint[]))

-- name: customers_by_id
SELECT * FROM customers WHERE id = ANY(CAST(:ids AS bigint[]))

-- name: work_orders_by_id
SELECT * FROM work_orders WHERE id = ANY(CAST(:ids AS bigint[]))

-- name: work_order_by_number
-- As typed or scanned: the exact number (its unique index), else one that differs only in
-- case (read only when the first finds nothing: the Append stops at the LIMIT).
(SELECT * FROM work_orders WHERE order_number = :number)
UNION ALL
(SELECT * FROM work_orders WHERE upper(order_number) = upper(:number))
LIMIT 1

-- name: tasks_by_id
SELECT * FROM department_tasks WHERE id = ANY(CAST(:ids AS bigint[]))

-- name: tasks_by_work_order
-- In id order: db/reads.py puts each order's tasks in route order.
SELECT t.*, d.kind AS department_kind
FROM department_tasks t JOIN departments d ON d.id = t.department_id
WHERE t.work_order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY t.work_order_id, t.id

-- name: task_history
SELECT * FROM task_transitions
WHERE task_id = ANY(CAST(:ids AS bigint[]))
ORDER BY task_id, id

-- name: work_order_history
SELECT * FROM work_order_transitions
WHERE work_order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY work_order_id, id

-- name: memberships_by_user
SELECT ud.user_id, ud.department_id
FROM user_departments ud JOIN departments d ON d.id = ud.department_id
WHERE ud.user_id = ANY(CAST(:ids AS bigint[]))
ORDER BY ud.user_id, d.code

-- name: work_order_page_relations
-- Everything a page of work orders may show about them, in one round trip, as one JSON
-- object of table rows by part; each part is read only when its flag asks for it (an
-- empty part is null). Users are the creators, history actors, pickers and task-history
-- actors; departments are the tasks' and the pickers'; `route` is every department, to put
-- each order's tasks in route order. Rows come in the order of the
-- per-relation statements above. JSON, not arrays of composite values: asyncpg decodes a
-- composite value into a record of its own, field by field (a 50-order page's relations:
-- 0.67 ms of CPU, against 0.28 ms to fetch and parse them as JSON; db/reads.py turns the
-- timestamps back into datetimes).
WITH page AS (SELECT * FROM work_orders WHERE id = ANY(CAST(:ids AS bigint[]))),
     page_tasks AS (SELECT t.* FROM department_tasks t
                    WHERE :tasks AND t.work_order_id IN (SELECT id FROM page)),
     moves AS (SELECT m.* FROM task_transitions m
               WHERE :task_history AND m.task_id IN (SELECT id FROM page_tasks)),
     history AS (SELECT h.* FROM work_order_transitions h
                 WHERE :history AND h.work_order_id IN (SELECT id FROM page)),
     pickers AS (SELECT DISTINCT picked_up_by AS id FROM page_tasks
                 WHERE :pickers AND picked_up_by IS NOT NULL),
     links AS (SELECT ud.user_id, ud.department_id, d.code FROM user_departments ud
               JOIN departments d ON d.id = ud.department_id
               WHERE :picker_departments AND ud.user_id IN (SELECT id FROM pickers))
SELECT CAST(json_build_object(
  'customers', (SELECT json_agg(c) FROM customers c
                WHERE :customers AND c.id IN (SELECT customer_id FROM page)),
  'tasks', (SELECT json_agg(t) FROM page_tasks t),
  'task_history', (SELECT json_agg(m ORDER BY m.task_id, m.id) FROM moves m),
  'history', (SELECT json_agg(h ORDER BY h.work_order_id, h.id) FROM history h),
  'departments', (SELECT json_agg(d) FROM departments d
                  WHERE d.id IN (SELECT department_id FROM page_tasks)
                     OR d.id IN (SELECT department_id FROM links)),
  'route', (SELECT json_agg(d) FROM departments d WHERE :tasks),
  'users', (SELECT json_agg(u) FROM users u
            WHERE (:creators AND u.id IN (SELECT created_by FROM page))
               OR u.id IN (SELECT actor_id FROM history)
               OR u.id IN (SELECT id FROM pickers)
               OR u.id IN (SELECT actor_id FROM moves)),
  'memberships', (SELECT json_agg(json_build_array(l.user_id, l.department_id)
                                  ORDER BY l.user_id, l.code) FROM links l)
) AS text) AS relations

-- name: work_orders_page
-- Newest first, or with :by_due the earliest due date first (none last, then by id);
-- keyset on id, or on (due_at, id); :backward reads the same order in reverse, from the
-- keyset towards the start. Filters are optional (NULL means any). "Late" is
-- domain.transitions.is_late: ACTIVE and its due date passed. Each order's ORDER BY
-- reduces to an index's order once the parameters are known (the primary key or
-- ix_work_orders_due_at_id, either way).
SELECT w.* FROM work_orders w
WHERE (CAST(:status AS text) IS NULL OR w.status = :status)
  AND (CAST(:customer_id AS bigint) IS NULL OR w.customer_id = :customer_id)
  AND (CAST(:search AS text) IS NULL
       OR w.order_number ILIKE '%' || :search || '%'
       OR EXISTS (SELECT 1 FROM customers c
                  WHERE c.id = w.customer_id AND c.name ILIKE '%' || :search || '%'))
  AND (CAST(:priority AS text) IS NULL OR w.priority = :priority)
  AND (CAST(:held AS boolean) IS NULL OR (w.held_at IS NOT NULL) = :held)
  AND (CAST(:late AS boolean) IS NULL
       OR coalesce(w.status = 'ACTIVE' AND w.due_at <= now(), false) = :late)
  AND (CAST(:due_before AS timestamptz) IS NULL OR w.due_at < :due_before)
  AND (CAST(:after_id AS bigint) IS NULL
       OR (NOT :by_due AND NOT :backward AND w.id < :after_id)
       OR (NOT :by_due AND :backward AND w.id > :after_id)
       OR (:by_due AND NOT :backward
           AND CASE WHEN CAST(:after_due AS timestamptz) IS NULL
                    THEN w.due_at IS NULL AND w.id > :after_id
                    ELSE w.due_at IS NULL OR (w.due_at, w.id) > (:after_due, :after_id)
               END)
       OR (:by_due AND :backward
           AND CASE WHEN CAST(:after_due AS timestamptz) IS NULL
                    THEN w.due_at IS NOT NULL OR w.id < :after_id
                    ELSE w.due_at IS NOT NULL AND (w.due_at, w.id) < (:after_due, :after_id)
               END))
ORDER BY CASE WHEN :by_due AND NOT :backward THEN w.due_at END,
         CASE WHEN :by_due AND NOT :backward THEN w.id END,
         CASE WHEN :by_due AND :backward THEN w.due_at END DESC,
         CASE WHEN :by_due AND :backward THEN w.id END DESC,
         CASE WHEN :backward THEN w.id END,
         w.id DESC
LIMIT :limit

-- name: customers_page
-- :refund_due (null: either way) asks for customers with a refund due on a cancelled
-- order (the refunds_due view, migration 0012), or without. Keyset on id, :backward as
-- stale_tasks_page.
SELECT * FROM customers c
WHERE (CAST(:search AS text) IS NULL OR c.name ILIKE '%' || :search || '%')
  AND (CAST(:refund_due AS boolean) IS NULL
       OR EXISTS (SELECT FROM refunds_due r WHERE r.customer_id = c.id) = :refund_due)
  AND (CAST(:after_id AS bigint) IS NULL
       OR CASE WHEN :backward THEN c.id < :after_id ELSE c.id > :after_id END)
ORDER BY CASE WHEN :backward THEN c.id END DESC, c.id
LIMIT :limit

-- name: users_page
-- Keyset on id, :backward as stale_tasks_page.
SELECT * FROM users
WHERE CAST(:after_id AS bigint) IS NULL
   OR CASE WHEN :backward THEN id < :after_id ELSE id > :after_id END
ORDER BY CASE WHEN :backward THEN id END DESC, id
LIMIT :limit

-- name: queue_page
-- A department's queue (domain.transitions.QueuePlace): its available PENDING tasks of
-- orders not on hold, RUSH first, then the earliest due date (none last), then the
-- oldest available; then its STARTED tasks, oldest start first; only tasks of ACTIVE
-- work orders. Keyset on (lane, rush, due, since, id) (:backward: before it, read towards
-- the start); no due date sorts as 9999-12-31, and a STARTED task's rush and due are
-- constants, so its lane sorts by start alone.
-- :search (a LIKE pattern, or null) keeps the tasks whose order's number, customer's name
-- or any detail's value (whence its job line) holds it: a department's active tasks are
-- few, so no index serves it. Every row has the queue's size as `total`, counted from the
-- tasks sorted for the page anyway; an empty page is one row of nulls with the total.
WITH queue AS MATERIALIZED (
    SELECT t.*, q.lane, q.rush, q.due, q.since FROM department_tasks t
    JOIN work_orders w ON w.id = t.work_order_id
    CROSS JOIN LATERAL (
        SELECT CASE WHEN t.status = 'PENDING' THEN 0 ELSE 1 END AS lane,
               CASE WHEN t.status = 'PENDING' AND w.priority = 'RUSH' THEN 0 ELSE 1 END AS rush,
               CASE WHEN t.status = 'PENDING'
                    THEN coalesce(w.due_at, timestamptz '9999-12-31Z')
                    ELSE timestamptz '9999-12-31Z' END AS due,
               CASE WHEN t.status = 'PENDING' THEN t.available_at ELSE t.started_at END AS since
    ) q
    WHERE t.department_id = :department_id
      AND w.status = 'ACTIVE'
      AND (t.status = 'STARTED'
           OR (t.status = 'PENDING' AND t.available_at <= now() AND w.held_at IS NULL))
      AND (CAST(:search AS text) IS NULL
           OR w.order_number ILIKE '%' || :search || '%'
           OR EXISTS (SELECT 1 FROM customers c
                      WHERE c.id = w.customer_id AND c.name ILIKE '%' || :search || '%')
           OR EXISTS (SELECT 1 FROM jsonb_each_text(w.details) AS d
                      WHERE d.value ILIKE '%' || :search || '%'))
), page AS (
    SELECT * FROM queue
    WHERE CAST(:after_lane AS integer) IS NULL
       OR CASE WHEN :backward
               THEN (lane, rush, due, since, id)
                    < (:after_lane, :after_rush, CAST(:after_due AS timestamptz),
                       CAST(:after_since AS timestamptz), :after_id)
               ELSE (lane, rush, due, since, id)
                    > (:after_lane, :after_rush, CAST(:after_due AS timestamptz),
                       CAST(:after_since AS timestamptz), :after_id)
          END
    ORDER BY CASE WHEN :backward THEN (lane, rush, due, since, id) END DESC,
             lane, rush, due, since, id
    LIMIT :limit
)
SELECT page.*, total.n AS total
FROM (SELECT count(*) AS n FROM queue) AS total
LEFT JOIN page ON true
ORDER BY CASE WHEN :backward THEN (page.lane, page.rush, page.due, page.since, page.id) END DESC,
         page.lane, page.rush, page.due, page.since, page.id

-- name: current_snapshot
-- What the reading transaction's snapshot saw, as text (`xmin:xmax:xip,...`).
SELECT CAST(pg_current_snapshot() AS text)

-- name: events_head
-- The newest event every reader may already see: every transaction below the
-- horizon that could write an event has finished (events_horizon, migration 0004),
-- so nothing can commit before this position.
SELECT CAST(xid AS text) AS xid, id FROM events
WHERE xid < (SELECT events_horizon())
ORDER BY events.xid DESC, events.id DESC
LIMIT 1

-- name: events_after
-- The event log in (xid, id) order after a position, optionally filtered. ORDER BY
-- names the table's columns: a bare `xid` there is the text column of the SELECT list,
-- and "10000" sorts before "9999". Only transactions older than the oldest running one
-- of this database are read, so an event that commits late is delivered late, never
-- skipped. :settled is a bound below
-- which every transaction is known to have finished (past what the feed already read):
-- events_horizon() can read lower for a moment, when pg_stat_activity no longer places
-- a transaction of another database that the snapshot still counts as running.
SELECT CAST(xid AS text) AS xid, id, type, schema_version, work_order_id, department_id,
       payload, occurred_at
FROM events
WHERE (xid, id) > (CAST(CAST(:xid AS text) AS xid8), :id)
  AND xid < greatest((SELECT events_horizon()), CAST(CAST(:settled AS text) AS xid8))
  AND (CAST(:department_id AS bigint) IS NULL OR department_id = :department_id)
  AND (CAST(:work_order_id AS bigint) IS NULL OR work_order_id = :work_order_id)
  AND (CAST(:types AS text[]) IS NULL OR type = ANY(CAST(:types AS text[]))
       OR (CAST(:gate AS boolean) AND payload @> '{"gate": true}'))
ORDER BY events.xid, events.id
LIMIT :limit

-- name: events_after_snapshot
-- Replay for a client holding a snapshot (the queue's eventCursor): every event
-- its snapshot did not see, in order, up to what is safe to read now (as events_after).
SELECT CAST(xid AS text) AS xid, id, type, schema_version, work_order_id, department_id,
       payload, occurred_at
FROM events
WHERE xid >= pg_snapshot_xmin(CAST(CAST(:snapshot AS text) AS pg_snapshot))
  AND NOT pg_visible_in_snapshot(xid, CAST(CAST(:snapshot AS text) AS pg_snapshot))
  AND (xid, id) > (CAST(CAST(:xid AS text) AS xid8), :id)
  AND xid < greatest((SELECT events_horizon()), CAST(CAST(:settled AS text) AS xid8))
  AND (CAST(:department_id AS bigint) IS NULL OR department_id = :department_id)
  AND (CAST(:work_order_id AS bigint) IS NULL OR work_order_id = :work_order_id)
  AND (CAST(:types AS text[]) IS NULL OR type = ANY(CAST(:types AS text[]))
       OR (CAST(:gate AS boolean) AND payload @> '{"gate": true}'))
ORDER BY events.xid, events.id
LIMIT :limit

-- name: events_pruned_through
-- The last event pruned (none: the log is whole). Every event before it is gone and
-- every one after it kept, so a cursor before it has expired.
SELECT CAST(xid AS text) AS xid, id FROM events_pruned

-- name: prune_events
-- Up to a batch of the oldest events past the retention, gone (migration 0015); NULL when
-- another process is pruning.
SELECT prune_events(make_interval(secs => :keep_seconds), :batch) AS pruned

-- name: may_record_event_retention
-- Whether the role migrating is the owner (the server's role may migrate alone, once the
-- owner has, and may only read the retention).
SELECT has_table_privilege('event_retention', 'UPDATE')

-- name: record_event_retention
-- As the owner: the retention the server's role may prune at, at the shortest (0017).
UPDATE event_retention SET keep = justify_hours(make_interval(secs => :keep_seconds))
WHERE keep <> make_interval(secs => :keep_seconds)

-- name: events_lag
-- Age of the oldest transaction holding back the event stream (0 when none).
SELECT coalesce(extract(epoch FROM now() - min(xact_start)), 0) AS seconds
FROM pg_stat_activity
WHERE backend_xid IS NOT NULL AND datname = current_database()

-- name: notify_events
-- The payload names the sending process, so that it can ignore its own wake-up.
SELECT pg_notify('pressroom_events', :origin)

-- name: revoke_tokens
-- Revocation is an event, so every server process closes the live connections using them.
WITH revoked AS (
    UPDATE tokens SET revoked_at = pressroom_now()
    WHERE id = ANY(CAST(:ids AS bigint[])) AND revoked_at IS NULL
    RETURNING *
), event AS (
    INSERT INTO events (type, payload)
    SELECT 'TOKEN_REVOKED', jsonb_build_object('tokenId', id, 'kind', kind, 'userId', user_id)
    FROM revoked
)
SELECT * FROM revoked

-- name: live_tokens_of
-- A user's tokens of these kinds that still work (or would, were the user active).
SELECT id FROM tokens
WHERE user_id = :user_id AND kind = ANY(CAST(:kinds AS text[])) AND revoked_at IS NULL
  AND (expires_at IS NULL OR expires_at > now())

-- name: tokens_page
-- Newest first, keyset on id (:backward: from :after_id towards the newest); one user's or
-- everyone's. Secrets are never stored.
SELECT * FROM tokens
WHERE (CAST(:user_id AS bigint) IS NULL OR user_id = :user_id)
  AND (CAST(:after_id AS bigint) IS NULL
       OR CASE WHEN :backward THEN id > :after_id ELSE id < :after_id END)
ORDER BY CASE WHEN :backward THEN id END, id DESC
LIMIT :limit

-- name: tokens_by_id
SELECT * FROM tokens WHERE id = ANY(CAST(:ids AS bigint[]))

-- name: token_by_id
SELECT * FROM tokens WHERE id = :token_id

-- name: ledger_entry_by_key
SELECT * FROM customer_ledger_entries WHERE idempotency_key = :idempotency_key

-- name: quote_to_charge
-- An order's quote under its row lock, what its entries charged already in the quote's
-- currency (CHARGE less CREDIT: the stored signed sum), and the quote-charge already
-- posted for this quote: one keyed quote-charge:<number>:... posted since the quote was
-- last set (or since the order was made, when it never changed).
SELECT w.id, w.order_number, w.customer_id, w.version, w.status, w.quote_minor,
       w.quote_currency,
       (SELECT coalesce(sum(e.amount_minor), 0) FROM customer_ledger_entries e
        WHERE e.work_order_id = w.id AND e.currency = w.quote_currency
          AND e.kind IN ('CHARGE', 'CREDIT')) AS charged_minor,
       (SELECT e.id FROM customer_ledger_entries e
        WHERE e.work_order_id = w.id
          AND e.idempotency_key LIKE 'quote-charge:' || w.order_number || ':%'
          AND e.posted_at >= coalesce(
              (SELECT max(h.occurred_at) FROM work_order_transitions h
               WHERE h.work_order_id = w.id AND h.action = 'QUOTE_CHANGED'), w.created_at)
        ORDER BY e.id DESC LIMIT 1) AS charged_entry_id
FROM work_orders w
WHERE w.id = :work_order_id
FOR NO KEY UPDATE OF w

-- name: ledger_post_facts
-- Whether the customer exists, and the work order's customer and status. The share
-- lock makes a CHARGE and a concurrent cancel of its order serialise.
SELECT EXISTS (SELECT 1 FROM customers WHERE id = :customer_id) AS customer_exists,
       w.customer_id AS order_customer_id, w.status AS order_status
FROM (SELECT 1) AS one
LEFT JOIN LATERAL (
    SELECT customer_id, status FROM work_orders
    WHERE id = CAST(:work_order_id AS bigint)
    FOR SHARE
) w ON true

-- name: post_ledger_entry
-- Appends an entry and its event in one statement. A key already used inserts
-- nothing; concurrent posts with one key wait on the unique index, so one inserts.
-- The event names no work order: work order subscribers are not all allowed to see money.
WITH posted AS (
    INSERT INTO customer_ledger_entries (customer_id, work_order_id, kind, amount_minor,
                                         currency, memo, idempotency_key, posted_by)
    VALUES (:customer_id, :work_order_id, :kind, :amount_minor, :currency, :memo,
            :idempotency_key, :posted_by)
    ON CONFLICT (idempotency_key) DO NOTHING
    RETURNING *
), event AS (
    INSERT INTO events (type, payload)
    SELECT 'LEDGER_ENTRY_POSTED', jsonb_build_object(
        'entryId', id, 'customerId', customer_id, 'workOrderId', work_order_id,
        'kind', kind, 'amountMinor', amount_minor, 'currency', currency)
    FROM posted
)
SELECT * FROM posted

-- name: ledger_entries_by_id
-- Ledger reads go through the customer_ledger view (its running balance per entry);
-- filtering on customer_id first lets PostgreSQL window over those customers only.
SELECT * FROM customer_ledger
WHERE customer_id = ANY(ARRAY(SELECT customer_id FROM customer_ledger_entries
                              WHERE id = ANY(CAST(:ids AS bigint[]))))
  AND id = ANY(CAST(:ids AS bigint[]))

-- name: ledger_of_work_orders
SELECT * FROM customer_ledger
WHERE customer_id = ANY(ARRAY(SELECT customer_id FROM work_orders
                              WHERE id = ANY(CAST(:ids AS bigint[]))))
  AND work_order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY work_order_id, id DESC

-- name: customer_ledger_page
-- Newest first, keyset on id (:backward: from :after_id towards the newest).
SELECT * FROM customer_ledger
WHERE customer_id = :customer_id
  AND (CAST(:after_id AS bigint) IS NULL
       OR CASE WHEN :backward THEN id > :after_id ELSE id < :after_id END)
ORDER BY CASE WHEN :backward THEN id END, id DESC
LIMIT :limit

-- name: receivables_ageing
-- Every customer and currency with a positive balance: the balance, and the oldest unpaid
-- debit when what was credited (payments, credits, negative adjustments) pays the debits
-- oldest first. Largest balance first.
WITH sums AS (
    SELECT customer_id, currency, CAST(sum(amount_minor) AS bigint) AS balance,
           coalesce(-sum(amount_minor) FILTER (WHERE amount_minor < 0), 0) AS credited
    FROM customer_ledger_entries
    GROUP BY customer_id, currency
    HAVING sum(amount_minor) > 0
), debits AS (
    SELECT e.customer_id, e.currency, e.posted_at, s.credited,
           sum(e.amount_minor) OVER (PARTITION BY e.customer_id, e.currency ORDER BY e.id)
               AS running
    FROM customer_ledger_entries e
    JOIN sums s ON s.customer_id = e.customer_id AND s.currency = e.currency
    WHERE e.amount_minor > 0
)
SELECT s.customer_id, s.currency, s.balance AS balance_minor,
       (SELECT min(d.posted_at) FROM debits d
        WHERE d.customer_id = s.customer_id AND d.currency = s.currency
          AND d.running > d.credited) AS oldest_unpaid_at
FROM sums s
ORDER BY s.balance DESC, s.customer_id, s.currency

-- name: refunds_due_of_work_orders
-- What each cancelled order's customer is owed back, per currency (the refunds_due view:
-- the one rule, which customers_page's filter reads too).
SELECT work_order_id, currency, due_minor AS minor FROM refunds_due
WHERE work_order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY work_order_id, currency

-- name: refunds_due_of_customers
SELECT customer_id, currency, CAST(sum(due_minor) AS bigint) AS minor FROM refunds_due
WHERE customer_id = ANY(CAST(:ids AS bigint[]))
GROUP BY customer_id, currency
ORDER BY customer_id, currency

-- name: customer_balances
-- One sum per currency the customer has entries in; positive when the customer owes.
SELECT customer_id, currency, CAST(sum(amount_minor) AS bigint) AS minor
FROM customer_ledger_entries
WHERE customer_id = ANY(CAST(:ids AS bigint[]))
GROUP BY customer_id, currency
ORDER BY customer_id, currency

-- Legacy import: the old system's tables, read from schema `legacy` of the source.

-- name: legacy_users
SELECT u.id, u.email, u.name, u.department, u.is_admin,
       array_remove(array_agg(r.role ORDER BY r.role), NULL) AS roles
FROM legacy.users u
LEFT JOIN legacy.roles r ON r.user_id = u.id
GROUP BY u.id, u.email, u.name, u.department, u.is_admin
ORDER BY u.id

-- name: legacy_order_numbers
SELECT id, order_no FROM legacy.orders ORDER BY id

-- name: legacy_orders_page
SELECT id, order_no, customer_name, status, created_at, notes, install, transport, repair
FROM legacy.orders
WHERE id > :after_id
ORDER BY id
LIMIT :limit

-- name: legacy_steps_of
SELECT order_id, id, step, status, operator_id, started_at, finished_at
FROM legacy.workflow_steps
WHERE order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY order_id, id

-- name: legacy_items_of
SELECT order_id, id, description, qty, unit_price_cents
FROM legacy.line_items
WHERE order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY order_id, id

-- name: legacy_payments
SELECT id, order_id, amount_cents, paid_at FROM legacy.payments ORDER BY id

-- Legacy import: what the target already holds, and the batched writes.

-- name: import_known_users
SELECT lower(u.email) AS email, u.id, u.is_admin,
       array_remove(array_agg(ud.department_id ORDER BY ud.department_id), NULL)
           AS department_ids
FROM users u
LEFT JOIN user_departments ud ON ud.user_id = u.id
GROUP BY u.id

-- name: import_order_numbers
SELECT order_number, legacy_id FROM work_orders

-- name: import_customers
SELECT id, name FROM customers ORDER BY id

-- name: import_posted_keys
SELECT idempotency_key FROM customer_ledger_entries
WHERE idempotency_key LIKE 'legacy-payment:%'

-- name: ensure_system_user
-- The actor of imported history: inactive, with no password, so it can never sign in.
WITH made AS (
    INSERT INTO users (email, name, is_admin, is_active)
    VALUES (:email, :name, false, false)
    ON CONFLICT DO NOTHING
    RETURNING id
)
SELECT id FROM made
UNION ALL
SELECT id FROM users WHERE lower(email) = lower(:email)
LIMIT 1

-- name: import_customers_insert
INSERT INTO customers (name, created_by)
SELECT unnest(CAST(:names AS text[])), :created_by
RETURNING id, name

-- name: import_orders
-- One batch of planned legacy orders with their tasks and history in one statement; live
-- (active) orders also get their creation events, so queues and displays learn of them.
-- An order already imported, or whose number was taken meanwhile, is skipped whole.
WITH xo AS (
    SELECT * FROM unnest(
        CAST(:o_legacy AS bigint[]), CAST(:o_number AS text[]), CAST(:o_customer AS bigint[]),
        CAST(:o_details AS jsonb[]), CAST(:o_install AS boolean[]),
        CAST(:o_transport AS boolean[]), CAST(:o_repair AS boolean[]),
        CAST(:o_quote AS bigint[]), CAST(:o_status AS text[]),
        CAST(:o_created AS timestamptz[]), CAST(:o_live AS boolean[]))
        AS x(legacy_id, order_number, customer_id, details, install, transport, repair,
             quote_minor, status, created_at, live)
), xt AS (
    SELECT * FROM unnest(
        CAST(:t_legacy AS bigint[]), CAST(:t_department AS bigint[]), CAST(:t_status AS text[]),
        CAST(:t_picker AS bigint[]), CAST(:t_available AS timestamptz[]),
        CAST(:t_started AS timestamptz[]), CAST(:t_completed AS timestamptz[]),
        CAST(:t_action AS text[]), CAST(:t_occurred AS timestamptz[]))
        AS x(legacy_id, department_id, status, picked_up_by, available_at, started_at,
             completed_at, action, occurred_at)
), o AS (
    INSERT INTO work_orders AS w (legacy_id, order_number, customer_id, details,
                                  needs_installation, needs_transport, needs_repair,
                                  quote_minor, quote_currency, status, imported_closed,
                                  created_by, created_at, updated_at)
    SELECT legacy_id, order_number, customer_id, details, install, transport, repair,
           quote_minor, CASE WHEN quote_minor IS NOT NULL THEN CAST(:currency AS text) END,
           status, NOT live, :system_user, created_at, created_at
    FROM xo
    ON CONFLICT DO NOTHING
    RETURNING w.id, w.legacy_id, w.created_at, work_order_created_payload(w) AS event_payload
), t AS (
    INSERT INTO department_tasks AS dt (work_order_id, department_id, status, picked_up_by,
                                        available_at, started_at, completed_at,
                                        created_at, updated_at)
    SELECT o.id, xt.department_id, xt.status, xt.picked_up_by, xt.available_at,
           xt.started_at, xt.completed_at, o.created_at, o.created_at
    FROM xt JOIN o ON o.legacy_id = xt.legacy_id
    RETURNING dt.id, dt.work_order_id, dt.department_id, task_event_payload(dt) AS event_payload
), task_history AS (
    INSERT INTO task_transitions (task_id, from_status, to_status, action, actor_id, reason,
                                  occurred_at)
    SELECT t.id, 'PENDING', xt.status, xt.action, :system_user, :reason, xt.occurred_at
    FROM t
    JOIN o ON o.id = t.work_order_id
    JOIN xt ON xt.legacy_id = o.legacy_id AND xt.department_id = t.department_id
    WHERE xt.action IS NOT NULL
), order_history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id,
                                        reason, occurred_at, department_id)
    -- The legacy system's only gate is the delivery task's. A system move has no actor.
    SELECT o.id, x.action, x.from_state, x.to_state, x.actor_id, :reason, x.occurred_at,
           CASE WHEN x.action IN ('OPEN_GATE', 'CLOSE_GATE')
                THEN (SELECT id FROM departments WHERE kind = 'DELIVERY') END
    FROM unnest(CAST(:h_legacy AS bigint[]), CAST(:h_action AS text[]),
                CAST(:h_from AS text[]), CAST(:h_to AS text[]),
                CAST(:h_occurred AS timestamptz[]), CAST(:h_actor AS bigint[]))
         AS x(legacy_id, action, from_state, to_state, occurred_at, actor_id)
    JOIN o ON o.legacy_id = x.legacy_id
), order_events AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'WORK_ORDER_CREATED', o.id, o.event_payload
    FROM o JOIN xo ON xo.legacy_id = o.legacy_id
    WHERE xo.live
), task_events AS (
    INSERT INTO events (type, work_order_id, department_id, payload)
    SELECT 'TASK_CREATED', t.work_order_id, t.department_id, t.event_payload
    FROM t JOIN o ON o.id = t.work_order_id JOIN xo ON xo.legacy_id = o.legacy_id
    WHERE xo.live
)
SELECT legacy_id, id FROM o

-- name: import_payments
-- Payments of imported orders (this run's or an earlier one's) as PAYMENT entries; a key
-- already posted is skipped, so a re-run never posts twice.
INSERT INTO customer_ledger_entries (customer_id, work_order_id, kind, amount_minor, currency,
                                     memo, idempotency_key, posted_by, posted_at)
SELECT w.customer_id, w.id, 'PAYMENT', x.amount_minor, :currency, x.memo, x.idempotency_key,
       :system_user, coalesce(x.paid_at, w.created_at)
FROM unnest(CAST(:legacy_order AS bigint[]), CAST(:amount AS bigint[]),
            CAST(:memo AS text[]), CAST(:idempotency_key AS text[]),
            CAST(:paid_at AS timestamptz[]))
     AS x(legacy_order, amount_minor, memo, idempotency_key, paid_at)
JOIN work_orders w ON w.legacy_id = x.legacy_order
ON CONFLICT (idempotency_key) DO NOTHING
RETURNING idempotency_key

-- name: rate_limit_lock
-- Counting and adding must not interleave for one key; a new statement after the lock
-- sees what the previous holder committed (READ COMMITTED).
SELECT pg_advisory_xact_lock(hashtextextended(:key, 7))

-- name: rate_limit_acquire
-- Adds `amount` hits to the key's moving window unless that would pass `limit`; hits
-- that left the window go meanwhile. A row per hit comes back when admitted.
WITH gone AS (
    DELETE FROM rate_limit_hits
    WHERE key = :key AND at <= clock_timestamp() - make_interval(secs => :expiry)
), seen AS (
    SELECT count(*) AS hits FROM rate_limit_hits
    WHERE key = :key AND at > clock_timestamp() - make_interval(secs => :expiry)
)
INSERT INTO rate_limit_hits (key, at)
SELECT :key, clock_timestamp() FROM seen, generate_series(1, :amount)
WHERE seen.hits + :amount <= :limit
RETURNING 1

-- name: rate_limit_release
-- Gives one hit of the key back (the newest: all of a key's hits count alike).
DELETE FROM rate_limit_hits
WHERE id = (SELECT max(id) FROM rate_limit_hits WHERE key = :key)

-- name: rate_limit_window
-- When the key's moving window began (its oldest hit still in it) and how many hits
-- it holds.
SELECT coalesce(extract(epoch FROM min(at)), extract(epoch FROM clock_timestamp())) AS started,
       count(*) AS hits
FROM rate_limit_hits
WHERE key = :key AND at > clock_timestamp() - make_interval(secs => :expiry)

-- name: rate_limit_clear
DELETE FROM rate_limit_hits WHERE key = :key

-- name: rate_limit_reset
DELETE FROM rate_limit_hits

-- name: rate_limit_sweep
-- Keys no request has come back for: their hits left every window long ago.
DELETE FROM rate_limit_hits WHERE at < clock_timestamp() - interval '1 day'

-- name: migration_lock
-- Held to the end of the transaction: one process at a time migrates or hands the
-- schema over (db/roles.py).
SELECT pg_advisory_xact_lock(:key)

-- name: current_role
SELECT current_user

-- name: role_standing
-- Whether :role is the one signed in, a superuser, or holds the rights of the one signed
-- in (the owner's, when the owner grants): no grant would narrow those.
SELECT r.rolname = current_user AS is_current, r.rolsuper AS superuser,
       pg_has_role(r.oid, current_user, 'USAGE') AS owner_rights
FROM pg_roles r
WHERE r.rolname = :role

-- name: role_privileges
-- Every table, view and sequence of the schema, with what :role was granted on it
-- itself (not through PUBLIC or a role it belongs to).
SELECT c.relname AS name, CAST(c.relkind AS text) AS kind,
       coalesce(array_agg(a.privilege_type ORDER BY a.privilege_type)
                FILTER (WHERE a.privilege_type IS NOT NULL), '{}') AS privileges
FROM pg_class c
LEFT JOIN LATERAL aclexplode(c.relacl) a
       ON a.grantee = (SELECT oid FROM pg_roles WHERE rolname = :role)
WHERE c.relnamespace = CAST('public' AS regnamespace) AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
GROUP BY c.relname, c.relkind
ORDER BY c.relname

-- name: database_owner
SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database()

-- name: objects_not_owned
-- What of the public schema :owner does not own, as ALTER ... OWNER TO takes it. A table
-- takes its indexes and its columns' sequences along, and those refuse to be moved alone.
SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW'
                      WHEN 'S' THEN 'SEQUENCE' ELSE 'TABLE' END AS kind,
       quote_ident(c.relname) AS name
FROM pg_class c
WHERE c.relnamespace = CAST('public' AS regnamespace) AND c.relkind IN ('r', 'p', 'v', 'm', 'S')
  AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = :owner)
  AND NOT EXISTS (
      SELECT FROM pg_depend d
      WHERE d.classid = CAST('pg_class' AS regclass) AND d.objid = c.oid
        AND d.refclassid = CAST('pg_class' AS regclass) AND d.deptype IN ('a', 'i'))
UNION ALL
SELECT 'FUNCTION', CAST(CAST(p.oid AS regprocedure) AS text)
FROM pg_proc p
WHERE p.pronamespace = CAST('public' AS regnamespace)
  AND p.proowner <> (SELECT oid FROM pg_roles WHERE rolname = :owner)

-- name: stamp_as_of
-- What this transaction writes is stamped :at (pressroom_now(), migration 0010), a moment
-- already past; the setting ends with the transaction.
SELECT set_config('pressroom.as_of', CAST(:at AS text), true)

-- name: department_flow
-- Flow figures of the departments :department_ids over [:from, :to) (docs/decisions.md,
-- "Flow figures"), read from the flow projection of the history (transition_task keeps
-- it, rebuild_flow derives it): a task counts once, by its final START when that
-- falls in the window and by its last completion when that does. Tasks of cancelled
-- orders and removed tasks count nowhere. `wip` and `waiting` are now.
WITH counted AS NOT MATERIALIZED (
    SELECT t.department_id, t.last_started_at, t.waited_seconds, t.last_completed_at,
           t.worked_seconds
    FROM department_tasks t
    WHERE t.department_id = ANY(CAST(:department_ids AS bigint[])) AND t.status <> 'REMOVED'
      AND t.work_order_id NOT IN (SELECT id FROM work_orders WHERE status = 'CANCELLED')
), waited AS (
    -- One sort for both percentiles.
    SELECT department_id, count(*) AS n, max(waited_seconds) AS top,
           percentile_cont(ARRAY[0.5, 0.85]) WITHIN GROUP (ORDER BY waited_seconds) AS p
    FROM counted
    WHERE last_started_at >= :from AND last_started_at < :to
    GROUP BY department_id
), completions AS (
    SELECT department_id, worked_seconds AS seconds,
           CAST(last_completed_at AT TIME ZONE CAST(:time_zone AS text) AS date) AS day
    FROM counted
    WHERE last_completed_at >= :from AND last_completed_at < :to
), worked AS (
    SELECT department_id, count(*) AS completed, count(seconds) AS n, max(seconds) AS top,
           percentile_cont(ARRAY[0.5, 0.85]) WITHIN GROUP (ORDER BY seconds) AS p
    FROM completions GROUP BY department_id
), per_day AS (
    SELECT department_id, jsonb_object_agg(CAST(day AS text), n) AS days
    FROM (SELECT department_id, day, count(*) AS n FROM completions GROUP BY 1, 2) AS d
    GROUP BY department_id
), present AS (
    SELECT t.department_id,
           count(*) FILTER (WHERE t.status = 'STARTED') AS wip,
           count(*) FILTER (WHERE t.status = 'PENDING' AND t.available_at <= now()
                                  AND w.held_at IS NULL) AS waiting
    FROM department_tasks t
    JOIN work_orders w ON w.id = t.work_order_id
    WHERE w.status = 'ACTIVE' AND t.status IN ('PENDING', 'STARTED')
      AND t.department_id = ANY(CAST(:department_ids AS bigint[]))
    GROUP BY t.department_id
)
SELECT d.id AS department_id,
       coalesce(wa.n, 0) AS wait_count, wa.p[1] AS wait_p50, wa.p[2] AS wait_p85,
       wa.top AS wait_max,
       coalesce(wo.completed, 0) AS completed,
       coalesce(wo.n, 0) AS work_count, wo.p[1] AS work_p50, wo.p[2] AS work_p85,
       wo.top AS work_max,
       coalesce(pd.days, '{}') AS per_day,
       coalesce(p.wip, 0) AS wip, coalesce(p.waiting, 0) AS waiting
FROM departments d
LEFT JOIN waited wa ON wa.department_id = d.id
LEFT JOIN worked wo ON wo.department_id = d.id
LEFT JOIN per_day pd ON pd.department_id = d.id
LEFT JOIN present p ON p.department_id = d.id
WHERE d.id = ANY(CAST(:department_ids AS bigint[]))
ORDER BY d.id

-- name: rebuild_flow
-- The flow projection of the orders :work_order_ids and their tasks, derived from history
-- alone, without events: an order's last completion; a task's the final START, waiting since the latest of the task's
-- creation, its gate's last opening before that START and its last reopen before it
-- (a release does not restart the wait); the last completion, working since the START
-- it completed (none for an admin's completion of a pending task).
WITH facts AS (
    SELECT t.id, s.occurred_at AS last_started_at,
           CAST(extract(epoch FROM s.occurred_at - greatest(
               t.created_at,
               (SELECT max(g.occurred_at) FROM work_order_transitions g
                WHERE g.work_order_id = t.work_order_id AND g.department_id = t.department_id
                  AND g.action = 'OPEN_GATE' AND g.occurred_at <= s.occurred_at),
               (SELECT max(r.occurred_at) FROM task_transitions r
                WHERE r.task_id = t.id AND r.action = 'REOPEN' AND r.id < s.id)
           )) AS double precision) AS waited_seconds,
           c.occurred_at AS last_completed_at,
           CASE WHEN c.from_status = 'STARTED' THEN CAST(extract(epoch FROM c.occurred_at - (
               SELECT p.occurred_at FROM task_transitions p
               WHERE p.task_id = t.id AND p.action = 'START' AND p.id < c.id
               ORDER BY p.id DESC LIMIT 1)) AS double precision) END AS worked_seconds
    FROM department_tasks t
    LEFT JOIN LATERAL (
        SELECT h.id, h.occurred_at FROM task_transitions h
        WHERE h.task_id = t.id AND h.action = 'START' ORDER BY h.id DESC LIMIT 1
    ) AS s ON true
    LEFT JOIN LATERAL (
        SELECT h.id, h.occurred_at, h.from_status FROM task_transitions h
        WHERE h.task_id = t.id AND h.to_status = 'COMPLETED' ORDER BY h.id DESC LIMIT 1
    ) AS c ON true
    WHERE t.work_order_id = ANY(CAST(:work_order_ids AS bigint[]))
), tasks AS (
    UPDATE department_tasks t SET
        last_started_at = f.last_started_at, waited_seconds = f.waited_seconds,
        last_completed_at = f.last_completed_at, worked_seconds = f.worked_seconds
    FROM facts f
    WHERE t.id = f.id
    RETURNING t.id
), orders AS (
    UPDATE work_orders w SET last_completed_at = (
        SELECT max(h.occurred_at) FROM work_order_transitions h
        WHERE h.work_order_id = w.id AND h.action = 'COMPLETE')
    WHERE w.id = ANY(CAST(:work_order_ids AS bigint[]))
)
SELECT count(*) AS tasks FROM tasks

-- name: work_order_ids_after
SELECT id FROM work_orders WHERE id > :after_id ORDER BY id LIMIT :limit

-- name: order_flow
-- Work orders whose last completion falls in [:from, :to) (cancelled ones count nowhere):
-- how many had a due date and met it, their lead times (created to completed), and of
-- those with proofs the time they waited for the customer: each version from its upload
-- to its decision (or to the next version's upload, or to the completion), summed. Beside
-- them, the active orders late now whose due date fell before :to (docs/decisions.md,
-- "The on-time rate"): the rate counts them as late.
WITH done AS (
    SELECT w.id, w.due_at, w.last_completed_at, w.last_completed_at <= w.due_at AS on_time,
           CAST(extract(epoch FROM w.last_completed_at - w.created_at) AS double precision)
               AS seconds
    FROM work_orders w
    WHERE w.last_completed_at >= :from AND w.last_completed_at < :to
      AND w.status <> 'CANCELLED'
), customer AS (
    SELECT sum(CAST(extract(epoch FROM least(
               coalesce(p.decided_at, n.uploaded_at, d.last_completed_at), d.last_completed_at)
               - p.uploaded_at) AS double precision)) AS seconds
    FROM done d
    JOIN proofs p ON p.work_order_id = d.id
    LEFT JOIN proofs n ON n.work_order_id = p.work_order_id AND n.version = p.version + 1
    GROUP BY d.id
), late_now AS (
    SELECT count(*) AS late_now
    FROM work_orders w
    WHERE w.status = 'ACTIVE' AND w.due_at < :to AND w.due_at <= now()
      AND w.id NOT IN (SELECT id FROM done)
)
SELECT with_due, on_time, late_now, lead_count, p[1] AS lead_p50, p[2] AS lead_p85, lead_max,
       c.customer_count, c.q[1] AS customer_p50, c.q[2] AS customer_p85, c.customer_max
FROM (
    SELECT count(*) FILTER (WHERE due_at IS NOT NULL) AS with_due,
           count(*) FILTER (WHERE on_time) AS on_time,
           count(*) AS lead_count, max(seconds) AS lead_max,
           percentile_cont(ARRAY[0.5, 0.85]) WITHIN GROUP (ORDER BY seconds) AS p
    FROM done
) AS totals
CROSS JOIN (
    SELECT count(*) AS customer_count, max(seconds) AS customer_max,
           percentile_cont(ARRAY[0.5, 0.85]) WITHIN GROUP (ORDER BY seconds) AS q
    FROM customer
) AS c
CROSS JOIN late_now

-- Exports (db/exports.py): streamed through a server-side cursor, in a stable order.

-- name: export_work_orders
-- Orders created in [:from, :to), oldest first, with their last completion and their
-- ledger entries (kind, signed amount, currency: domain.ledger totals them).
SELECT w.order_number, c.name AS customer, w.created_at, w.due_at, w.status,
       w.quote_minor, w.quote_currency,
       (SELECT h.occurred_at FROM work_order_transitions h
        WHERE h.work_order_id = w.id AND h.action = 'COMPLETE'
        ORDER BY h.id DESC LIMIT 1) AS completed_at,
       m.kinds AS entry_kinds, m.minors AS entry_minors, m.currencies AS entry_currencies
FROM work_orders w
JOIN customers c ON c.id = w.customer_id
CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(e.kind ORDER BY e.id), '{}') AS kinds,
           coalesce(array_agg(e.amount_minor ORDER BY e.id), '{}') AS minors,
           coalesce(array_agg(e.currency ORDER BY e.id), '{}') AS currencies
    FROM customer_ledger_entries e WHERE e.work_order_id = w.id
) AS m
WHERE w.created_at >= :from AND w.created_at < :to
ORDER BY w.created_at, w.id

-- name: export_task_transitions
-- Every task move in [:from, :to), in the order they happened, with how long the task
-- had been in the state it left (since its previous move, or since it was created).
SELECT w.order_number, d.code AS department, d.name AS department_name, h.from_status,
       h.to_status, h.action,
       u.name AS actor, h.reason, h.occurred_at,
       CAST(extract(epoch FROM h.occurred_at - coalesce(
           (SELECT p.occurred_at FROM task_transitions p
            WHERE p.task_id = h.task_id AND p.id < h.id ORDER BY p.id DESC LIMIT 1),
           t.created_at)) AS double precision) AS seconds_before
FROM task_transitions h
JOIN department_tasks t ON t.id = h.task_id
JOIN work_orders w ON w.id = t.work_order_id
JOIN departments d ON d.id = t.department_id
JOIN users u ON u.id = h.actor_id
WHERE h.occurred_at >= :from AND h.occurred_at < :to
ORDER BY h.occurred_at, h.id

-- name: export_ledger
-- One customer's entries, oldest first, with the running balance in their currency.
SELECT l.posted_at, l.kind, l.memo, w.order_number, l.amount_minor, l.currency,
       l.balance_after_minor, u.name AS posted_by
FROM customer_ledger l
LEFT JOIN work_orders w ON w.id = l.work_order_id
JOIN users u ON u.id = l.posted_by
WHERE l.customer_id = :customer_id
ORDER BY l.id

-- name: insert_webhook
-- A new webhook follows the log from now: its cursor starts at the horizon, below which
-- every transaction has finished (the events before its creation are not its business).
INSERT INTO webhooks (url, description, event_kinds, department_ids, secret, created_by,
                      cursor_xid)
VALUES (:url, :description, :event_kinds, :department_ids, :secret, :created_by,
        (SELECT events_horizon()))
RETURNING *

-- name: webhooks_all
SELECT * FROM webhooks ORDER BY id

-- name: webhooks_by_ids
SELECT * FROM webhooks WHERE id = ANY(:ids)

-- name: update_webhook
-- What is given replaces what was (NULL: kept); enabling again clears why it stopped and
-- since when it failed.
-- Departments and description change only when set_* says so (their NULL means "every
-- department" and "none").
UPDATE webhooks SET
    url = coalesce(:url, url),
    description = CASE WHEN :set_description THEN :description ELSE description END,
    event_kinds = coalesce(:event_kinds, event_kinds),
    department_ids = CASE WHEN :set_departments THEN :department_ids ELSE department_ids END,
    enabled = coalesce(:enabled, enabled),
    disabled_reason = CASE WHEN coalesce(:enabled, enabled) THEN NULL ELSE
                      coalesce(:disabled_reason, disabled_reason) END,
    -- Turned on again: its count of days failing starts anew.
    failing_since = CASE WHEN :enabled THEN NULL ELSE failing_since END,
    version = version + 1
WHERE id = :id
RETURNING *

-- name: rotate_webhook_secret
UPDATE webhooks SET secret = :secret, version = version + 1 WHERE id = :id RETURNING *

-- name: delete_webhook
-- Its deliveries go with it (ON DELETE CASCADE).
DELETE FROM webhooks WHERE id = :id RETURNING id

-- name: webhook_deliveries_page
-- A webhook's deliveries, newest first, after the keyset :after_id (NULL: from the top;
-- :backward: before it, towards the newest).
SELECT d.*, e.occurred_at AS event_occurred_at
FROM webhook_deliveries d
LEFT JOIN events e ON e.id = d.event_id
WHERE d.webhook_id = :webhook_id
  AND (CAST(:status AS text) IS NULL OR d.status = :status)
  AND (CAST(:after_id AS bigint) IS NULL
       OR CASE WHEN :backward THEN d.id > :after_id ELSE d.id < :after_id END)
ORDER BY CASE WHEN :backward THEN d.id END, d.id DESC
LIMIT :limit

-- name: webhook_delivery_by_id
SELECT d.*, e.occurred_at AS event_occurred_at
FROM webhook_deliveries d
LEFT JOIN events e ON e.id = d.event_id
WHERE d.id = :id

-- name: redeliver_webhook_delivery
-- Sent again as soon as its webhook's relay comes by, ahead of later events (it is older),
-- with a fresh count of attempts; its body stays the one first sent. Only while its event
-- is in the log (the relay sends events, not bodies alone): `kept` says whether it was.
WITH target AS (
    SELECT d.id, EXISTS (SELECT FROM events e WHERE e.id = d.event_id) AS kept
    FROM webhook_deliveries d WHERE d.id = :id
), moved AS (
    UPDATE webhook_deliveries d SET status = 'PENDING', attempts = 0, error = NULL,
                                    next_attempt_at = pressroom_now()
    FROM target WHERE d.id = target.id AND target.kept
)
SELECT kept FROM target

-- name: claim_webhooks
-- Leases up to :limit enabled webhooks no live process holds, the least recently served
-- first (other processes skip the rows this statement locks): the holder sends their
-- deliveries; a holder that dies lets its lease run out and another process takes over.
-- The holder works with the webhook as it is now: a change of it (its version) ends
-- the holder's writes, and the next holder reads it anew.
UPDATE webhooks w SET lease_owner = :owner,
                      lease_until = now() + make_interval(secs => :lease_seconds)
FROM (SELECT id FROM webhooks
      WHERE enabled AND (lease_until IS NULL OR lease_until < now())
      ORDER BY lease_until NULLS FIRST, id
      LIMIT :limit
      FOR UPDATE SKIP LOCKED) free
WHERE w.id = free.id
RETURNING w.id, w.url, w.secret, w.created_by, w.version

-- name: release_webhook
-- Let go, marked as served now (claims take the least recently served first).
UPDATE webhooks SET lease_owner = NULL, lease_until = now()
WHERE id = :id AND lease_owner = :owner

-- name: follow_webhook
-- Up to :limit events of the log after the webhook's cursor, in (xid, id) order and below
-- the horizon (as events_after: an event that commits late is read late, never skipped):
-- each of its kinds and departments becomes a delivery, and the cursor moves past them all.
-- Only while :owner holds the webhook, unchanged since it was claimed.
WITH hook AS (
    SELECT * FROM webhooks
    WHERE id = :id AND lease_owner = :owner AND version = :version AND enabled
), page AS (
    -- The cursor as values, not a join: a join's row comparison is no index condition,
    -- and the whole log would be read to find the page.
    SELECT e.id, e.xid, e.type, e.department_id
    FROM events e
    WHERE (e.xid, e.id) > ((SELECT cursor_xid FROM hook), (SELECT cursor_id FROM hook))
      AND e.xid < (SELECT events_horizon())
    ORDER BY e.xid, e.id
    LIMIT :limit
), sent AS (
    INSERT INTO webhook_deliveries (webhook_id, event_id, event_xid, event_type)
    SELECT h.id, p.id, p.xid, p.type
    FROM page p, hook h
    WHERE p.type = ANY(h.event_kinds)
      AND (h.department_ids IS NULL OR p.department_id IS NULL
           OR p.department_id = ANY(h.department_ids))
    ON CONFLICT (webhook_id, event_id) DO NOTHING
    RETURNING id
), last AS (
    SELECT xid, id FROM page ORDER BY page.xid DESC, page.id DESC LIMIT 1
), moved AS (
    UPDATE webhooks w SET cursor_xid = last.xid, cursor_id = last.id
    FROM last WHERE w.id = :id
)
SELECT (SELECT count(*) FROM page) AS read, (SELECT count(*) FROM sent) AS added

-- name: webhook_next_deliveries
-- A webhook's pending deliveries in commit order, with whether each may be tried now and
-- the event it carries.
SELECT d.id AS delivery_id, d.attempts, d.body, d.next_attempt_at <= now() AS due,
       e.id, CAST(e.xid AS text) AS xid, e.type, e.work_order_id, e.department_id, e.payload,
       e.occurred_at, e.schema_version
FROM webhook_deliveries d
JOIN events e ON e.id = d.event_id
WHERE d.webhook_id = :id AND d.status = 'PENDING'
ORDER BY d.event_xid, d.event_id
LIMIT :limit

-- name: webhook_deliveries_attempted
-- Attempts' outcomes (one row per delivery, arrays in step), and the holder's lease
-- lengthened, while :owner holds the webhook unchanged (a holder whose lease ran out, or
-- whose webhook an admin changed, writes nothing: the next holder sends again). Since
-- when the webhook has failed without a break: from the first failure after one that
-- went through, none once the last attempt went through; and whether that is longer
-- than :disable_after_seconds.
WITH hook AS (
    UPDATE webhooks SET lease_until = now() + make_interval(secs => :lease_seconds),
        failing_since = CASE WHEN :last_failed THEN
                            CASE WHEN :any_delivered THEN pressroom_now()
                                 ELSE coalesce(failing_since, pressroom_now()) END
                        END
    WHERE id = :webhook_id AND lease_owner = :owner AND version = :version
    RETURNING id, failing_since,
        failing_since < now() - make_interval(secs => :disable_after_seconds) AS too_long
), attempt AS (
    SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:statuses AS text[]),
                         CAST(:response_statuses AS integer[]), CAST(:errors AS text[]),
                         CAST(:durations AS integer[]), CAST(:bodies AS text[]),
                         CAST(:retry_ins AS double precision[]))
         AS a(id, status, response_status, error, duration_ms, body, retry_in)
)
UPDATE webhook_deliveries d SET
    status = a.status,
    attempts = d.attempts + 1,
    last_attempt_at = pressroom_now(),
    response_status = a.response_status,
    error = a.error,
    duration_ms = a.duration_ms,
    body = coalesce(d.body, a.body),
    next_attempt_at = CASE WHEN a.retry_in IS NULL THEN d.next_attempt_at
                           ELSE now() + make_interval(secs => a.retry_in) END,
    delivered_at = CASE WHEN a.status = 'DELIVERED' THEN pressroom_now() END
FROM hook, attempt a
WHERE d.id = a.id AND d.webhook_id = hook.id
RETURNING d.id, hook.failing_since, hook.too_long

-- name: disable_webhook
-- Stopped by itself, which is an event (not sent to any webhook).
WITH stopped AS (
    UPDATE webhooks SET enabled = false, disabled_reason = :reason, version = version + 1
    WHERE id = :id
    RETURNING id, disabled_reason, failing_since
)
INSERT INTO events (type, payload)
SELECT 'WEBHOOK_DISABLED', jsonb_build_object('webhookId', id, 'reason', disabled_reason,
                                              'failingSince', failing_since)
FROM stopped

-- name: webhook_backlog
-- Per webhook: its pending deliveries and how long the oldest has waited since its event.
SELECT w.id, count(d.id) AS pending,
       coalesce(extract(epoch FROM now() - min(e.occurred_at)), 0) AS lag_seconds
FROM webhooks w
LEFT JOIN webhook_deliveries d ON d.webhook_id = w.id AND d.status = 'PENDING'
LEFT JOIN events e ON e.id = d.event_id
WHERE w.id = ANY(:ids)
GROUP BY w.id

-- name: insert_payment_inbox
INSERT INTO payment_inboxes (name, currency, secret, created_by)
VALUES (:name, :currency, :secret, :created_by)
ON CONFLICT (name) DO NOTHING
RETURNING *

-- name: payment_inbox_door
-- The inbox a notification is for, when it takes any (enabled): the secret before a
-- rotation only while it is still good.
SELECT id, name, currency, secret, created_by, created_at, enabled,
       CASE WHEN previous_secret_until > pressroom_now() THEN previous_secret END
           AS previous_secret,
       previous_secret_until
FROM payment_inboxes WHERE name = :name AND enabled

-- name: payment_inboxes_all
SELECT * FROM payment_inboxes ORDER BY id

-- name: insert_payment_inbox_request
-- With it, those of the inbox's oldest requests (a hundred at most) that are past the
-- retention go: each inbox keeps about a retention's worth, pruned as new ones come.
WITH expired AS (
    DELETE FROM payment_inbox_requests WHERE id IN (
        SELECT id FROM (
            SELECT id, received_at FROM payment_inbox_requests
            WHERE inbox_id = :inbox_id ORDER BY id LIMIT 100
        ) oldest
        WHERE received_at < pressroom_now() - make_interval(days => :keep_days)
    )
)
INSERT INTO payment_inbox_requests (inbox_id, message_id, status, error, entry_id)
VALUES (:inbox_id, :message_id, :status, :error, :entry_id)

-- name: rotate_payment_inbox_secret
-- The secret it had stays good for :overlap_seconds (none: it stops at once).
UPDATE payment_inboxes
SET previous_secret = CASE WHEN CAST(:overlap_seconds AS integer) > 0 THEN secret END,
    previous_secret_until = CASE WHEN CAST(:overlap_seconds AS integer) > 0
        THEN pressroom_now() + make_interval(secs => CAST(:overlap_seconds AS integer)) END,
    secret = :secret
WHERE id = :id
RETURNING *

-- name: set_payment_inbox_enabled
UPDATE payment_inboxes SET enabled = :enabled WHERE id = :id RETURNING *

-- name: delete_payment_inbox
-- Its requests go with it (ON DELETE CASCADE); the entries it posted stay in the ledger.
DELETE FROM payment_inboxes WHERE id = :id RETURNING id

-- name: payment_inbox_requests_page
-- An inbox's requests, newest first.
SELECT * FROM payment_inbox_requests WHERE inbox_id = :inbox_id ORDER BY id DESC LIMIT :limit

-- ===== proofs: files =====

-- name: proofs_by_id
SELECT * FROM proofs WHERE id = ANY(CAST(:ids AS bigint[]))

-- name: proofs_of_work_orders
-- Newest version first.
SELECT * FROM proofs WHERE work_order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY work_order_id, version DESC

-- name: add_proof_version
-- Under the order's row lock (orders.lock_open_order), so each upload sees the last one's
-- version: the next version, the one still waiting for a decision withdrawn, and the event.
-- Nothing when the uploader may not add proofs to this order: unless :any_order (Sales,
-- admins), they must be a member of one of the departments that make the proofs
-- (:maker_ids, as domain.routing.proof_makers says) with a task on the order.
WITH allowed AS (
    SELECT 1 AS ok
    WHERE CAST(:any_order AS boolean) OR EXISTS (
        SELECT 1 FROM department_tasks t
        JOIN user_departments ud ON ud.department_id = t.department_id
        WHERE t.work_order_id = :work_order_id AND t.status <> 'REMOVED'
          AND ud.user_id = :uploaded_by
          AND t.department_id = ANY(CAST(:maker_ids AS bigint[])))
), withdrawn AS (
    UPDATE proofs SET status = 'WITHDRAWN'
    WHERE work_order_id = :work_order_id AND status = 'PENDING'
      AND EXISTS (SELECT 1 FROM allowed)
    RETURNING version
), added AS (
    INSERT INTO proofs (work_order_id, version, file_name, media_type, size_bytes, sha256,
                        width, height, uploaded_by)
    SELECT :work_order_id,
           coalesce((SELECT max(version) FROM proofs WHERE work_order_id = :work_order_id), 0) + 1,
           :file_name, :media_type, :size_bytes, :sha256, :width, :height, :uploaded_by
    FROM allowed
    RETURNING proofs.*, proof_event_payload(proofs) AS event_payload
), event AS (
    -- The payload every proof event carries, and the version this one withdrew.
    INSERT INTO events (type, work_order_id, payload)
    SELECT 'PROOF_UPLOADED', work_order_id, event_payload || jsonb_build_object(
        'withdrawnVersion', (SELECT max(version) FROM withdrawn))
    FROM added
)
SELECT added.*, (SELECT max(version) FROM withdrawn) AS withdrawn_version FROM added

-- name: add_proof_chunk
INSERT INTO proof_chunks (proof_id, part, seq, data) VALUES (:proof_id, :part, :seq, :data)

-- name: proof_chunk
SELECT data FROM proof_chunks WHERE proof_id = :proof_id AND part = :part AND seq = :seq

-- ===== proofs: gate and decisions =====

-- name: decide_proof
-- The one writer of a proof version's decision. Locks the work order first (as
-- transition_task does), so a racing decision, upload or cancel queues behind us and then
-- sees our commit; decides the version only if it is still PENDING and the order's
-- latest, on an ACTIVE order, and a customer's only through a link of this order not
-- revoked. Its history row (:kind, with the decision in words) and its event (:kind,
-- proof_event_payload) with it. The caller settles the gates under the lock.
WITH wo AS (
    SELECT w.id FROM work_orders w
    WHERE w.id = :work_order_id AND w.status = 'ACTIVE' AND NOT w.imported_closed
      AND (CAST(:customer_link_id AS bigint) IS NULL OR EXISTS (
            SELECT 1 FROM customer_links l
            WHERE l.id = :customer_link_id AND l.work_order_id = w.id AND l.revoked_at IS NULL))
    FOR NO KEY UPDATE
), decided AS (
    UPDATE proofs p SET
        status = CAST(:status AS text), decided_at = pressroom_now(),
        decided_through = CAST(:through AS text), decided_by_name = :decided_by_name,
        decided_by = CAST(:decided_by AS bigint),
        customer_link_id = CAST(:customer_link_id AS bigint), comment = :comment
    FROM wo
    WHERE p.work_order_id = wo.id AND p.version = :version AND p.status = 'PENDING'
      AND NOT EXISTS (SELECT 1 FROM proofs n
                      WHERE n.work_order_id = p.work_order_id AND n.version > p.version)
    RETURNING p.*, proof_event_payload(p) AS event_payload
), history AS (
    INSERT INTO work_order_transitions (work_order_id, action, from_state, to_state, actor_id,
                                        reason)
    SELECT work_order_id, :kind, 'PENDING', status, :decided_by, :history FROM decided
), event AS (
    INSERT INTO events (type, work_order_id, payload)
    SELECT :kind, work_order_id, event_payload FROM decided
)
SELECT id, work_order_id FROM decided

-- name: proof_state
-- Re-read after decide_proof matched nothing, for domain.proof_decisions.judge_decision.
SELECT p.id, p.version, p.status, p.decided_by_name, w.status AS order_status,
       w.imported_closed,
       (SELECT max(n.version) FROM proofs n WHERE n.work_order_id = w.id) AS latest_version,
       CAST(:customer_link_id AS bigint) IS NULL OR EXISTS (
           SELECT 1 FROM customer_links l
           WHERE l.id = :customer_link_id AND l.work_order_id = w.id
             AND l.revoked_at IS NULL) AS way_in
FROM proofs p JOIN work_orders w ON w.id = p.work_order_id
WHERE p.work_order_id = :work_order_id AND p.version = :version

-- name: proof_makers_tasks
-- The order's tasks (but removed ones) of the departments whose work the proof is.
SELECT t.id, t.department_id, t.status FROM department_tasks t
WHERE t.work_order_id = :work_order_id AND t.status <> 'REMOVED'
  AND t.department_id = ANY(CAST(:department_ids AS bigint[]))
ORDER BY t.department_id

-- ===== customer links =====

-- name: insert_customer_link
-- A link to an order that exists (no row: there is none with that id), with what says
-- when a link without its own expiry ends (db/customer_links.py).
WITH made AS (
    INSERT INTO customer_links (work_order_id, secret_hash, created_by, emailed_to, expires_at)
    SELECT id, :secret_hash, :created_by, :emailed_to, :expires_at
    FROM work_orders WHERE id = :work_order_id
    RETURNING *
)
SELECT made.*, w.status AS order_status, coalesce(w.last_completed_at, w.updated_at) AS order_ended_at
FROM made JOIN work_orders w ON w.id = made.work_order_id

-- name: customer_links_of_work_orders
-- Every link of these orders, newest first.
SELECT l.*, w.status AS order_status, coalesce(w.last_completed_at, w.updated_at) AS order_ended_at
FROM customer_links l JOIN work_orders w ON w.id = l.work_order_id
WHERE l.work_order_id = ANY(:ids)
ORDER BY l.work_order_id, l.id DESC

-- name: customer_link_by_secret
SELECT l.*, w.status AS order_status, coalesce(w.last_completed_at, w.updated_at) AS order_ended_at
FROM customer_links l JOIN work_orders w ON w.id = l.work_order_id
WHERE l.secret_hash = :secret_hash

-- name: revoke_customer_link
-- Only a link not revoked yet: no row when it already was, or there is none.
WITH revoked AS (
    UPDATE customer_links SET revoked_at = pressroom_now(), revoked_by = :revoked_by
    WHERE id = :id AND revoked_at IS NULL
    RETURNING *
)
SELECT revoked.*, w.status AS order_status, coalesce(w.last_completed_at, w.updated_at) AS order_ended_at
FROM revoked JOIN work_orders w ON w.id = revoked.work_order_id

-- name: customer_link_exists
SELECT revoked_at IS NOT NULL AS revoked FROM customer_links WHERE id = :id

-- name: touch_customer_link
-- Marks it used, at most every ten minutes: an open page polls once a minute, and a write
-- per poll (a thousand pages: 17 a second) would tell Sales nothing more.
UPDATE customer_links SET last_used_at = pressroom_now()
WHERE id = :id AND (last_used_at IS NULL OR last_used_at < pressroom_now() - interval '10 minutes')

-- name: orders_awaiting_customer
-- Orders whose latest proof version waits for the customer (a newer version withdraws a
-- waiting one, so a waiting version is its order's latest), oldest first.
SELECT work_order_id FROM proofs WHERE status = 'PENDING' ORDER BY id

-- ===== mail =====

-- name: start_mail_outbox
-- The outbox follows the log from when a process first sends mail: the events before
-- are not news to anyone by then.
INSERT INTO mail_outbox (cursor_xid) VALUES ((SELECT events_horizon()))
ON CONFLICT (singleton) DO NOTHING

-- name: claim_mail_outbox
-- Leases the outbox when no live process holds it (another one skips the row this locks):
-- the holder makes and sends the messages; a holder that dies lets its lease run out.
UPDATE mail_outbox o SET lease_owner = :owner,
                         lease_until = now() + make_interval(secs => :lease_seconds)
FROM (SELECT singleton FROM mail_outbox
      WHERE lease_until IS NULL OR lease_until < now()
      FOR UPDATE SKIP LOCKED) free
WHERE o.singleton = free.singleton
RETURNING o.singleton

-- name: release_mail_outbox
UPDATE mail_outbox SET lease_owner = NULL, lease_until = now() WHERE lease_owner = :owner

-- name: follow_mail_outbox
-- Up to :limit events after the outbox's cursor, in (xid, id) order below the horizon (as
-- follow_webhook), made into messages, and the cursor moved past them all; only while
-- :owner holds the outbox. Which events are news, and to whom (domain.mail.MailKind):
-- a proof uploaded, to the customer; changes requested, to Sales (:sales_email); the
-- delivery gate opening on an order that is picked up, and the delivery task starting on
-- one that is transported, to the customer; the due date moved later, to the customer.
-- The customer only with an email address and receives_email. Events older than
-- :max_age_seconds (the outbox was not running) make none.
WITH box AS (
    SELECT * FROM mail_outbox WHERE lease_owner = :owner AND lease_until > now()
), page AS (
    SELECT e.id, e.xid, e.type, e.work_order_id, e.department_id, e.payload, e.occurred_at
    FROM events e
    WHERE (e.xid, e.id) > ((SELECT cursor_xid FROM box), (SELECT cursor_id FROM box))
      AND e.xid < (SELECT events_horizon())
    ORDER BY e.xid, e.id
    LIMIT :limit
), news AS (
    SELECT p.id AS event_id, p.type, p.work_order_id, p.payload,
        CASE
            WHEN p.type = 'PROOF_UPLOADED' THEN 'PROOF_READY'
            WHEN p.type = 'PROOF_CHANGES_REQUESTED' THEN 'CHANGES_REQUESTED'
            WHEN p.type = 'DELIVERY_GATE_OPENED' AND NOT w.needs_transport
                THEN 'READY_FOR_PICKUP'
            WHEN p.type = 'TASK_CHANGED' AND d.kind = 'DELIVERY' AND w.needs_transport
                 AND p.payload->>'status' = 'STARTED' THEN 'OUT_FOR_DELIVERY'
            WHEN p.type = 'WORK_ORDER_CHANGED' AND p.payload->>'field' = 'schedule'
                 AND CAST(p.payload->>'dueAt' AS timestamptz)
                     > CAST(p.payload->>'previousDueAt' AS timestamptz) THEN 'DUE_LATER'
        END AS kind,
        CASE WHEN p.type = 'PROOF_CHANGES_REQUESTED' THEN CAST(:sales_email AS text)
             WHEN c.receives_email THEN c.email END AS recipient
    FROM page p
    JOIN work_orders w ON w.id = p.work_order_id
    JOIN customers c ON c.id = w.customer_id
    LEFT JOIN departments d ON d.id = p.department_id
    WHERE p.occurred_at > now() - make_interval(secs => :max_age_seconds)
), made AS (
    INSERT INTO mail_messages (event_id, event_type, work_order_id, kind, recipient, payload)
    SELECT event_id, type, work_order_id, kind, recipient, payload FROM news
    WHERE kind IS NOT NULL AND recipient IS NOT NULL
    ON CONFLICT (event_id, recipient) DO NOTHING
    RETURNING id
), last AS (
    SELECT xid, id FROM page ORDER BY page.xid DESC, page.id DESC LIMIT 1
), moved AS (
    UPDATE mail_outbox o SET cursor_xid = last.xid, cursor_id = last.id
    FROM last, box WHERE o.singleton = box.singleton
)
SELECT (SELECT count(*) FROM page) AS read, (SELECT count(*) FROM made) AS added

-- name: mail_next_messages
-- The pending messages whose time has come, the longest waiting first, with what their
-- words need: the order, its customer, and the proof they are about.
SELECT m.id, m.event_id, m.kind, m.recipient, m.payload, m.attempts, m.message,
       m.work_order_id, w.order_number, w.details, c.name AS customer_name,
       pr.version AS proof_version, pr.comment AS proof_comment,
       pr.decided_by_name AS proof_decided_by_name
FROM mail_messages m
JOIN work_orders w ON w.id = m.work_order_id
JOIN customers c ON c.id = w.customer_id
LEFT JOIN proofs pr ON pr.id = CAST(m.payload->>'proofId' AS bigint)
WHERE m.status = 'PENDING' AND m.next_attempt_at <= now()
ORDER BY m.next_attempt_at, m.id
LIMIT :limit

-- name: mail_message_composed
-- The message as it is sent at every attempt, kept while :owner holds the outbox.
UPDATE mail_messages m SET subject = :subject, message = :message,
                           customer_link_id = :customer_link_id
FROM mail_outbox o
WHERE m.id = :id AND m.status = 'PENDING' AND m.message IS NULL
  AND o.lease_owner = :owner AND o.lease_until > now()
RETURNING m.id

-- name: mail_messages_attempted
-- Attempts' outcomes (arrays in step) and the lease lengthened, while :owner holds the
-- outbox (a holder whose lease ran out writes nothing: the next one sends again). A
-- message no longer pending forgets its bytes.
WITH box AS (
    UPDATE mail_outbox SET lease_until = now() + make_interval(secs => :lease_seconds)
    WHERE lease_owner = :owner AND lease_until > now()
    RETURNING singleton
), attempt AS (
    SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:statuses AS text[]),
                         CAST(:errors AS text[]), CAST(:retry_ins AS double precision[]))
         AS a(id, status, error, retry_in)
)
UPDATE mail_messages m SET
    status = a.status,
    attempts = m.attempts + 1,
    last_attempt_at = pressroom_now(),
    error = a.error,
    next_attempt_at = CASE WHEN a.retry_in IS NULL THEN m.next_attempt_at
                           ELSE now() + make_interval(secs => a.retry_in) END,
    sent_at = CASE WHEN a.status = 'DELIVERED' THEN pressroom_now() END,
    message = CASE WHEN a.status = 'PENDING' THEN m.message END
FROM box, attempt a
WHERE m.id = a.id AND m.status = 'PENDING'
RETURNING m.id

-- name: mail_messages_page
-- Messages newest first, after the keyset :after_id (NULL: from the top; :backward:
-- before it, towards the newest); with :status, only those.
SELECT m.*, w.order_number
FROM mail_messages m
JOIN work_orders w ON w.id = m.work_order_id
WHERE (CAST(:status AS text) IS NULL OR m.status = :status)
  AND (CAST(:after_id AS bigint) IS NULL
       OR CASE WHEN :backward THEN m.id > :after_id ELSE m.id < :after_id END)
ORDER BY CASE WHEN :backward THEN m.id END, m.id DESC
LIMIT :limit

-- name: mail_messages_of_work_orders
-- The orders' messages, newest first.
SELECT m.*, w.order_number
FROM mail_messages m
JOIN work_orders w ON w.id = m.work_order_id
WHERE m.work_order_id = ANY(CAST(:ids AS bigint[]))
ORDER BY m.id DESC

-- name: mail_message_for_update
-- The message, locked until the transaction ends: a resend judges it as it is.
SELECT m.*, w.order_number
FROM mail_messages m
JOIN work_orders w ON w.id = m.work_order_id
WHERE m.id = :id
FOR UPDATE OF m

-- name: resend_mail_message
-- PENDING again at once with a fresh count of attempts, made anew at its next attempt (a
-- proof's with a new link, its words as the order is now); its Message-ID stays.
WITH moved AS (
    UPDATE mail_messages SET status = 'PENDING', attempts = 0, error = NULL, message = NULL,
                             sent_at = NULL, next_attempt_at = pressroom_now()
    WHERE id = :id
    RETURNING *
)
SELECT moved.*, w.order_number FROM moved JOIN work_orders w ON w.id = moved.work_order_id

-- ===== proof screens =====

-- name: awaiting_proof
-- A department's PENDING tasks whose gate is shut, on ACTIVE orders not on hold that
-- require a proof, of a department that needs one, with the order's latest proof
-- version's status for domain.routing.awaits_proof to judge; the earliest due date
-- first (none last), then the oldest task.
SELECT t.*, lp.status AS latest_proof
FROM department_tasks t
JOIN work_orders w ON w.id = t.work_order_id
JOIN departments d ON d.id = t.department_id
LEFT JOIN LATERAL (
    SELECT p.status FROM proofs p WHERE p.work_order_id = w.id ORDER BY p.version DESC LIMIT 1
) lp ON true
WHERE t.department_id = :department_id AND t.status = 'PENDING' AND t.available_at IS NULL
  AND w.status = 'ACTIVE' AND w.held_at IS NULL AND w.proof_required AND d.needs_approved_proof
ORDER BY coalesce(w.due_at, timestamptz '9999-12-31Z'), t.id
LIMIT :limit
