-- What the migrations build, dumped by pg_dump: for reading, never run.
-- Regenerate with scripts/export-db-schema (a test fails when it drifts).

CREATE FUNCTION public.events_horizon() RETURNS xid8
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT coalesce(min(running), pg_snapshot_xmax(pg_current_snapshot()))
    FROM pg_snapshot_xip(pg_current_snapshot()) AS running
    WHERE CAST(running AS xid) NOT IN (
        SELECT backend_xid FROM pg_stat_activity
        WHERE backend_xid IS NOT NULL
          AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database())
    )
$$;

CREATE FUNCTION public.pressroom_now() RETURNS timestamp with time zone
    LANGUAGE plpgsql STABLE
    AS $$
DECLARE
    as_of timestamptz := CAST(nullif(current_setting('pressroom.as_of', true), '') AS timestamptz);
BEGIN
    IF as_of IS NULL THEN
        RETURN now();
    END IF;
    -- A time set by hand may lay history out in the past, never stamp the future.
    IF as_of > now() THEN
        RAISE EXCEPTION 'pressroom.as_of % is in the future', as_of
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN as_of;
END
$$;

CREATE TABLE public.proofs (
    id bigint NOT NULL,
    work_order_id bigint NOT NULL,
    version integer NOT NULL,
    file_name text NOT NULL,
    media_type text NOT NULL,
    size_bytes bigint NOT NULL,
    sha256 bytea NOT NULL,
    width integer,
    height integer,
    uploaded_by bigint NOT NULL,
    uploaded_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    decided_at timestamp with time zone,
    decided_through text,
    decided_by_name text,
    decided_by bigint,
    customer_link_id bigint,
    comment text,
    CONSTRAINT ck_proofs_changes_say_what CHECK (((status <> 'CHANGES_REQUESTED'::text) OR (comment IS NOT NULL))),
    CONSTRAINT ck_proofs_decided_through CHECK (((decided_through IS NULL) OR (decided_through = ANY (ARRAY['CUSTOMER'::text, 'SALES'::text])))),
    CONSTRAINT ck_proofs_decision_complete CHECK ((((status = ANY (ARRAY['APPROVED'::text, 'CHANGES_REQUESTED'::text])) = (decided_at IS NOT NULL)) AND ((decided_at IS NULL) = (decided_through IS NULL)) AND ((decided_at IS NULL) = (decided_by_name IS NULL)))),
    CONSTRAINT ck_proofs_sales_named CHECK (((decided_through IS DISTINCT FROM 'SALES'::text) OR (decided_by IS NOT NULL))),
    CONSTRAINT ck_proofs_status CHECK ((status = ANY (ARRAY['PENDING'::text, 'APPROVED'::text, 'CHANGES_REQUESTED'::text, 'WITHDRAWN'::text])))
);

CREATE FUNCTION public.proof_event_payload(p public.proofs) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    SELECT jsonb_build_object(
        'proofId', p.id, 'workOrderId', p.work_order_id, 'version', p.version,
        'fileName', p.file_name, 'mediaType', p.media_type, 'sizeBytes', p.size_bytes,
        'uploadedBy', p.uploaded_by, 'uploadedAt', p.uploaded_at, 'status', p.status,
        'decidedAt', p.decided_at, 'decidedThrough', p.decided_through,
        'decidedByName', p.decided_by_name, 'decidedBy', p.decided_by, 'comment', p.comment)
$$;

CREATE FUNCTION public.prune_events(keep interval, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public'
    AS $$
DECLARE
    shortest interval;
BEGIN
    IF NOT pg_has_role(session_user, current_user, 'USAGE') THEN
        SELECT r.keep INTO shortest FROM event_retention r;
        IF keep < shortest THEN
            RAISE EXCEPTION 'events are kept %, the retention the owner recorded, not %',
                shortest, keep
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    END IF;
    RETURN prune_events_past(keep, batch);
END
$$;

CREATE FUNCTION public.prune_events_past(keep interval, batch integer) RETURNS integer
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'public'
    AS $$
DECLARE
    hook_xid xid8;
    hook_id bigint;
    wait_xid xid8;
    wait_id bigint;
    last_xid xid8;
    last_id bigint;
    last_at timestamptz;
    pruned integer;
BEGIN
    -- A bug or an injected statement in the server cannot empty the live log with it.
    IF keep < interval '1 day' THEN
        RAISE EXCEPTION 'events are kept at least a day, not %', keep
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF batch NOT BETWEEN 1 AND 10000 THEN
        RAISE EXCEPTION 'a batch is 1 to 10000 events, not %', batch
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF NOT pg_try_advisory_xact_lock(482956635749) THEN  -- "prune" in ASCII
        RETURN NULL;
    END IF;
    SELECT cursor_xid, cursor_id INTO hook_xid, hook_id
    FROM webhooks WHERE enabled ORDER BY cursor_xid, cursor_id LIMIT 1;
    SELECT d.event_xid, d.event_id INTO wait_xid, wait_id
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
    WHERE d.status = 'PENDING' AND w.enabled
    ORDER BY d.event_xid, d.event_id LIMIT 1;
    PERFORM set_config('pressroom.pruning_events', 'on', true);
    WITH head AS (
        SELECT id, xid, occurred_at FROM events
        WHERE xid < events_horizon()
        ORDER BY xid, id
        LIMIT batch
    ), judged AS (
        SELECT id, bool_and(occurred_at < now() - keep
                            AND (hook_xid IS NULL OR (xid, id) <= (hook_xid, hook_id))
                            AND (wait_xid IS NULL OR (xid, id) < (wait_xid, wait_id)))
                   OVER (ORDER BY xid, id) AS goes
        FROM head
    ), gone AS (
        DELETE FROM events e USING judged j
        WHERE j.goes AND e.id = j.id
        RETURNING e.xid, e.id, e.occurred_at
    )
    SELECT g.xid, g.id, g.occurred_at, (SELECT count(*) FROM gone)
    INTO last_xid, last_id, last_at, pruned
    FROM gone g ORDER BY g.xid DESC, g.id DESC LIMIT 1;
    PERFORM set_config('pressroom.pruning_events', '', true);
    IF last_id IS NULL THEN
        RETURN 0;
    END IF;
    INSERT INTO events_pruned (xid, id, occurred_at, pruned_at)
    VALUES (last_xid, last_id, last_at, now())
    ON CONFLICT (singleton) DO UPDATE
    SET xid = excluded.xid, id = excluded.id, occurred_at = excluded.occurred_at,
        pruned_at = excluded.pruned_at;
    UPDATE webhook_deliveries d
    SET status = 'DEAD', next_attempt_at = now(),
        error = 'Its event was pruned from the log (older than the retention) while the '
                'webhook was off.'
    FROM webhooks w
    WHERE w.id = d.webhook_id AND NOT w.enabled AND d.status = 'PENDING'
      AND (d.event_xid, d.event_id) <= (last_xid, last_id);
    RETURN pruned;
END
$$;

CREATE FUNCTION public.refuse_history_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_TABLE_NAME = 'events' AND TG_OP = 'DELETE'
       AND current_setting('pressroom.pruning_events', true) = 'on' THEN
        RETURN NULL;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END
$$;

CREATE FUNCTION public.refuse_ledger_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
        BEGIN
            RAISE EXCEPTION 'customer_ledger_entries is append-only: post a correcting entry'
                USING ERRCODE = 'restrict_violation';
        END
        $$;

CREATE TABLE public.department_tasks (
    id bigint NOT NULL,
    work_order_id bigint NOT NULL,
    department_id bigint NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    picked_up_by bigint,
    available_at timestamp with time zone,
    started_at timestamp with time zone,
    completed_at timestamp with time zone,
    version integer DEFAULT 1 NOT NULL,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    updated_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    last_started_at timestamp with time zone,
    waited_seconds double precision,
    last_completed_at timestamp with time zone,
    worked_seconds double precision,
    CONSTRAINT ck_department_tasks_completed_at_iff_completed CHECK (((status = 'COMPLETED'::text) = (completed_at IS NOT NULL))),
    CONSTRAINT ck_department_tasks_picked_up_by_starting CHECK (
CASE status
    WHEN 'PENDING'::text THEN (picked_up_by IS NULL)
    WHEN 'STARTED'::text THEN (picked_up_by IS NOT NULL)
    ELSE true
END),
    CONSTRAINT ck_department_tasks_status CHECK ((status = ANY (ARRAY['PENDING'::text, 'STARTED'::text, 'COMPLETED'::text, 'REMOVED'::text])))
);

CREATE FUNCTION public.task_event_payload(t public.department_tasks) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
            SELECT jsonb_build_object(
                'taskId', t.id, 'workOrderId', t.work_order_id,
                'departmentId', t.department_id, 'status', t.status,
                'pickedUpBy', t.picked_up_by, 'availableAt', t.available_at,
                'startedAt', t.started_at, 'completedAt', t.completed_at, 'version', t.version)
        $$;

CREATE TABLE public.work_orders (
    id bigint NOT NULL,
    order_number text NOT NULL,
    customer_id bigint NOT NULL,
    details jsonb DEFAULT '{}'::jsonb NOT NULL,
    needs_installation boolean DEFAULT false NOT NULL,
    needs_transport boolean DEFAULT false NOT NULL,
    needs_repair boolean DEFAULT false NOT NULL,
    quote_minor bigint,
    quote_currency text,
    status text DEFAULT 'ACTIVE'::text NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    created_by bigint,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    updated_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    legacy_id bigint,
    imported_closed boolean DEFAULT false NOT NULL,
    due_at timestamp with time zone,
    priority text DEFAULT 'NORMAL'::text NOT NULL,
    held_at timestamp with time zone,
    held_by bigint,
    hold_reason text,
    last_completed_at timestamp with time zone,
    idempotency_key text,
    idempotency_fingerprint text,
    proof_required boolean DEFAULT false NOT NULL,
    CONSTRAINT ck_work_orders_hold_complete CHECK ((((held_at IS NULL) = (held_by IS NULL)) AND ((held_at IS NULL) = (hold_reason IS NULL)))),
    CONSTRAINT ck_work_orders_idempotency_fingerprinted CHECK (((idempotency_key IS NULL) = (idempotency_fingerprint IS NULL))),
    CONSTRAINT ck_work_orders_priority CHECK ((priority = ANY (ARRAY['NORMAL'::text, 'RUSH'::text]))),
    CONSTRAINT ck_work_orders_quote_has_currency CHECK (((quote_minor IS NULL) = (quote_currency IS NULL))),
    CONSTRAINT ck_work_orders_status CHECK ((status = ANY (ARRAY['ACTIVE'::text, 'COMPLETED'::text, 'CANCELLED'::text])))
);

CREATE FUNCTION public.work_order_changed_payload(w public.work_orders, field text) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
    SELECT jsonb_build_object('workOrderId', w.id, 'field', field, 'status', w.status,
                              'version', w.version)
$$;

CREATE FUNCTION public.work_order_created_payload(w public.work_orders) RETURNS jsonb
    LANGUAGE sql STABLE
    AS $$
            SELECT jsonb_build_object('workOrderId', w.id, 'orderNumber', w.order_number,
                                      'status', w.status, 'version', w.version)
        $$;

CREATE TABLE public.alembic_version (
    version_num character varying(32) NOT NULL
);

CREATE TABLE public.customer_ledger_entries (
    id bigint NOT NULL,
    customer_id bigint NOT NULL,
    work_order_id bigint,
    kind text NOT NULL,
    amount_minor bigint NOT NULL,
    currency text NOT NULL,
    memo text,
    idempotency_key text NOT NULL,
    posted_by bigint NOT NULL,
    posted_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    CONSTRAINT ck_customer_ledger_entries_currency_code CHECK ((currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT ck_customer_ledger_entries_kind CHECK ((kind = ANY (ARRAY['CHARGE'::text, 'PAYMENT'::text, 'CREDIT'::text, 'REFUND'::text, 'ADJUSTMENT'::text]))),
    CONSTRAINT ck_customer_ledger_entries_sign_follows_kind CHECK (
CASE
    WHEN (kind = ANY (ARRAY['CHARGE'::text, 'REFUND'::text])) THEN (amount_minor > 0)
    WHEN (kind = ANY (ARRAY['PAYMENT'::text, 'CREDIT'::text])) THEN (amount_minor < 0)
    ELSE (amount_minor <> 0)
END)
);

CREATE VIEW public.customer_ledger AS
 SELECT id,
    customer_id,
    work_order_id,
    kind,
    amount_minor,
    currency,
    memo,
    idempotency_key,
    posted_by,
    posted_at,
    (sum(amount_minor) OVER (PARTITION BY customer_id, currency ORDER BY id))::bigint AS balance_after_minor
   FROM public.customer_ledger_entries e;

ALTER TABLE public.customer_ledger_entries ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.customer_ledger_entries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.customer_links (
    id bigint NOT NULL,
    work_order_id bigint NOT NULL,
    secret_hash bytea NOT NULL,
    created_by bigint,
    emailed_to text,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    revoked_by bigint,
    last_used_at timestamp with time zone,
    CONSTRAINT ck_customer_links_made_by CHECK (((created_by IS NOT NULL) OR (emailed_to IS NOT NULL)))
);

ALTER TABLE public.customer_links ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.customer_links_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.customers (
    id bigint NOT NULL,
    name text NOT NULL,
    created_by bigint,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    contact_name text,
    email text,
    phone text,
    address_lines text[] DEFAULT '{}'::text[] NOT NULL,
    postcode text,
    city text,
    country text,
    notes text,
    idempotency_key text,
    idempotency_fingerprint text,
    receives_email boolean DEFAULT true NOT NULL,
    CONSTRAINT ck_customers_idempotency_fingerprinted CHECK (((idempotency_key IS NULL) = (idempotency_fingerprint IS NULL)))
);

ALTER TABLE public.customers ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.customers_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE public.department_tasks ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.department_tasks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.departments (
    id bigint NOT NULL,
    code text NOT NULL,
    name text NOT NULL,
    kind text NOT NULL,
    gates_delivery boolean NOT NULL,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    follows bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    needs_approved_proof boolean DEFAULT false NOT NULL,
    CONSTRAINT ck_departments_gates_production CHECK (((gates_delivery = false) OR (kind = 'PRODUCTION'::text))),
    CONSTRAINT ck_departments_kind CHECK ((kind = ANY (ARRAY['SALES'::text, 'ACCOUNTS'::text, 'PRODUCTION'::text, 'DELIVERY'::text]))),
    CONSTRAINT ck_departments_proof_production CHECK (((needs_approved_proof = false) OR (kind = 'PRODUCTION'::text)))
);

ALTER TABLE public.departments ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.departments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.event_retention (
    singleton boolean DEFAULT true NOT NULL,
    keep interval NOT NULL,
    CONSTRAINT ck_event_retention_a_day CHECK ((keep >= '1 day'::interval)),
    CONSTRAINT ck_event_retention_singleton CHECK (singleton)
);

CREATE TABLE public.events (
    id bigint NOT NULL,
    xid xid8 DEFAULT pg_current_xact_id() NOT NULL,
    type text NOT NULL,
    schema_version smallint DEFAULT '1'::smallint NOT NULL,
    work_order_id bigint,
    department_id bigint,
    payload jsonb NOT NULL,
    occurred_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    CONSTRAINT ck_events_type CHECK ((type = ANY (ARRAY['TASK_CREATED'::text, 'TASK_CHANGED'::text, 'TASK_WITHDRAWN'::text, 'TASK_REQUEUED'::text, 'TASK_GATE_OPENED'::text, 'TASK_GATE_CLOSED'::text, 'DELIVERY_GATE_OPENED'::text, 'DELIVERY_GATE_CLOSED'::text, 'WORK_ORDER_CREATED'::text, 'WORK_ORDER_CHANGED'::text, 'TOKEN_REVOKED'::text, 'LEDGER_ENTRY_POSTED'::text, 'USER_ACCESS_CHANGED'::text, 'WORK_ORDER_DUE_SOON'::text, 'WORK_ORDER_LATE'::text, 'TASK_STALE'::text, 'WEBHOOK_DISABLED'::text, 'PROOF_UPLOADED'::text, 'PROOF_APPROVED'::text, 'PROOF_CHANGES_REQUESTED'::text])))
);

ALTER TABLE public.events ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.events_pruned (
    singleton boolean DEFAULT true NOT NULL,
    xid xid8 NOT NULL,
    id bigint NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    pruned_at timestamp with time zone NOT NULL,
    CONSTRAINT ck_events_pruned_singleton CHECK (singleton)
);

CREATE TABLE public.mail_messages (
    id bigint NOT NULL,
    event_id bigint NOT NULL,
    event_type text NOT NULL,
    work_order_id bigint NOT NULL,
    kind text NOT NULL,
    recipient text NOT NULL,
    payload jsonb NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    last_attempt_at timestamp with time zone,
    error text,
    sent_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    subject text,
    message bytea,
    customer_link_id bigint,
    CONSTRAINT ck_mail_messages_kind CHECK ((kind = ANY (ARRAY['PROOF_READY'::text, 'CHANGES_REQUESTED'::text, 'READY_FOR_PICKUP'::text, 'OUT_FOR_DELIVERY'::text, 'DUE_LATER'::text]))),
    CONSTRAINT ck_mail_messages_sent_forgotten CHECK (((status = 'PENDING'::text) OR (message IS NULL))),
    CONSTRAINT ck_mail_messages_status CHECK ((status = ANY (ARRAY['PENDING'::text, 'DELIVERED'::text, 'DEAD'::text])))
);

ALTER TABLE public.mail_messages ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.mail_messages_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.mail_outbox (
    singleton boolean DEFAULT true NOT NULL,
    cursor_xid xid8 NOT NULL,
    cursor_id bigint DEFAULT '0'::bigint NOT NULL,
    lease_owner text,
    lease_until timestamp with time zone,
    CONSTRAINT ck_mail_outbox_singleton CHECK (singleton)
);

CREATE TABLE public.payment_inbox_requests (
    id bigint NOT NULL,
    inbox_id bigint NOT NULL,
    received_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    message_id text,
    status integer NOT NULL,
    error text,
    entry_id bigint
);

ALTER TABLE public.payment_inbox_requests ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.payment_inbox_requests_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.payment_inboxes (
    id bigint NOT NULL,
    name text NOT NULL,
    currency text NOT NULL,
    secret text NOT NULL,
    created_by bigint NOT NULL,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    previous_secret text,
    previous_secret_until timestamp with time zone,
    CONSTRAINT ck_payment_inboxes_previous_secret_until CHECK (((previous_secret IS NULL) = (previous_secret_until IS NULL)))
);

ALTER TABLE public.payment_inboxes ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.payment_inboxes_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.proof_chunks (
    proof_id bigint NOT NULL,
    part text NOT NULL,
    seq integer NOT NULL,
    data bytea NOT NULL,
    CONSTRAINT ck_proof_chunks_part CHECK ((part = ANY (ARRAY['FILE'::text, 'PREVIEW'::text])))
);

ALTER TABLE public.proofs ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.proofs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.rate_limit_hits (
    id bigint NOT NULL,
    key text NOT NULL,
    at timestamp with time zone NOT NULL
);

ALTER TABLE public.rate_limit_hits ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.rate_limit_hits_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE VIEW public.refunds_due AS
 SELECT w.id AS work_order_id,
    w.customer_id,
    s.currency,
    ((s.paid - GREATEST(s.credited_beyond, (0)::numeric)))::bigint AS due_minor
   FROM (public.work_orders w
     CROSS JOIN LATERAL ( SELECT e.currency,
            COALESCE((- sum(e.amount_minor) FILTER (WHERE (e.kind = ANY (ARRAY['PAYMENT'::text, 'REFUND'::text])))), (0)::numeric) AS paid,
            COALESCE((- sum(e.amount_minor) FILTER (WHERE (e.kind = ANY (ARRAY['CHARGE'::text, 'CREDIT'::text])))), (0)::numeric) AS credited_beyond
           FROM public.customer_ledger_entries e
          WHERE (e.work_order_id = w.id)
          GROUP BY e.currency) s)
  WHERE ((w.status = 'CANCELLED'::text) AND (NOT w.imported_closed) AND ((s.paid - GREATEST(s.credited_beyond, (0)::numeric)) > (0)::numeric));

CREATE TABLE public.task_transitions (
    id bigint NOT NULL,
    task_id bigint NOT NULL,
    from_status text NOT NULL,
    to_status text NOT NULL,
    action text NOT NULL,
    actor_id bigint NOT NULL,
    reason text,
    occurred_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    CONSTRAINT ck_task_transitions_action CHECK ((action = ANY (ARRAY['START'::text, 'FINISH'::text, 'RELEASE'::text, 'OVERRIDE_COMPLETE'::text, 'REOPEN'::text, 'REMOVE'::text]))),
    CONSTRAINT ck_task_transitions_from_status CHECK ((from_status = ANY (ARRAY['PENDING'::text, 'STARTED'::text, 'COMPLETED'::text, 'REMOVED'::text]))),
    CONSTRAINT ck_task_transitions_to_status CHECK ((to_status = ANY (ARRAY['PENDING'::text, 'STARTED'::text, 'COMPLETED'::text, 'REMOVED'::text])))
);

ALTER TABLE public.task_transitions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.task_transitions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.timers (
    id bigint NOT NULL,
    purpose text NOT NULL,
    work_order_id bigint NOT NULL,
    task_id bigint,
    armed_for timestamp with time zone NOT NULL,
    due_at timestamp with time zone NOT NULL,
    fired_at timestamp with time zone,
    CONSTRAINT ck_timers_purpose CHECK ((purpose = ANY (ARRAY['WORK_ORDER_DUE_SOON'::text, 'WORK_ORDER_LATE'::text, 'TASK_STALE'::text])))
);

ALTER TABLE public.timers ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.timers_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.tokens (
    id bigint NOT NULL,
    kind text NOT NULL,
    name text NOT NULL,
    token_hash bytea NOT NULL,
    user_id bigint NOT NULL,
    department_ids bigint[],
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    expires_at timestamp with time zone,
    revoked_at timestamp with time zone,
    CONSTRAINT ck_tokens_display_departments CHECK (((kind = 'DISPLAY'::text) = (department_ids IS NOT NULL))),
    CONSTRAINT ck_tokens_kind CHECK ((kind = ANY (ARRAY['SESSION'::text, 'API'::text, 'DISPLAY'::text])))
);

ALTER TABLE public.tokens ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.user_departments (
    user_id bigint NOT NULL,
    department_id bigint NOT NULL
);

CREATE TABLE public.users (
    id bigint NOT NULL,
    email text NOT NULL,
    name text NOT NULL,
    password_hash text,
    is_admin boolean DEFAULT false NOT NULL,
    is_active boolean DEFAULT true NOT NULL,
    department text,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    idempotency_key text,
    idempotency_fingerprint text,
    CONSTRAINT ck_users_idempotency_fingerprinted CHECK (((idempotency_key IS NULL) = (idempotency_fingerprint IS NULL)))
);

ALTER TABLE public.users ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.webhook_deliveries (
    id bigint NOT NULL,
    webhook_id bigint NOT NULL,
    event_id bigint NOT NULL,
    event_xid xid8 NOT NULL,
    event_type text NOT NULL,
    status text DEFAULT 'PENDING'::text NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    next_attempt_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    last_attempt_at timestamp with time zone,
    response_status integer,
    error text,
    duration_ms integer,
    delivered_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    body text,
    CONSTRAINT ck_webhook_deliveries_status CHECK ((status = ANY (ARRAY['PENDING'::text, 'DELIVERED'::text, 'DEAD'::text])))
);

ALTER TABLE public.webhook_deliveries ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.webhook_deliveries_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.webhooks (
    id bigint NOT NULL,
    url text NOT NULL,
    description text,
    event_kinds text[] NOT NULL,
    department_ids bigint[],
    secret text NOT NULL,
    enabled boolean DEFAULT true NOT NULL,
    disabled_reason text,
    created_by bigint NOT NULL,
    created_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    version integer DEFAULT 1 NOT NULL,
    cursor_xid xid8 NOT NULL,
    cursor_id bigint DEFAULT '0'::bigint NOT NULL,
    lease_owner text,
    lease_until timestamp with time zone,
    failing_since timestamp with time zone
);

ALTER TABLE public.webhooks ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.webhooks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE SEQUENCE public.work_order_number_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE public.work_order_transitions (
    id bigint NOT NULL,
    work_order_id bigint NOT NULL,
    action text NOT NULL,
    from_state text NOT NULL,
    to_state text NOT NULL,
    actor_id bigint,
    reason text,
    occurred_at timestamp with time zone DEFAULT public.pressroom_now() NOT NULL,
    department_id bigint,
    changes jsonb,
    CONSTRAINT ck_work_order_transitions_action CHECK ((action = ANY (ARRAY['COMPLETE'::text, 'REACTIVATE'::text, 'CANCEL'::text, 'OPEN_GATE'::text, 'CLOSE_GATE'::text, 'QUOTE_CHANGED'::text, 'SCHEDULE_CHANGED'::text, 'HELD'::text, 'RESUMED'::text, 'DETAILS_CHANGED'::text, 'DEPARTMENT_ADDED'::text, 'DEPARTMENT_REMOVED'::text, 'PROOF_APPROVED'::text, 'PROOF_CHANGES_REQUESTED'::text]))),
    CONSTRAINT ck_work_order_transitions_system_moves_no_actor CHECK (((actor_id IS NULL) OR (action <> ALL (ARRAY['CLOSE_GATE'::text, 'COMPLETE'::text, 'OPEN_GATE'::text, 'REACTIVATE'::text]))))
);

ALTER TABLE public.work_order_transitions ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.work_order_transitions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE public.work_orders ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY (
    SEQUENCE NAME public.work_orders_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE ONLY public.alembic_version
    ADD CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num);

ALTER TABLE ONLY public.customer_ledger_entries
    ADD CONSTRAINT pk_customer_ledger_entries PRIMARY KEY (id);

ALTER TABLE ONLY public.customer_links
    ADD CONSTRAINT pk_customer_links PRIMARY KEY (id);

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT pk_customers PRIMARY KEY (id);

ALTER TABLE ONLY public.department_tasks
    ADD CONSTRAINT pk_department_tasks PRIMARY KEY (id);

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT pk_departments PRIMARY KEY (id);

ALTER TABLE ONLY public.event_retention
    ADD CONSTRAINT pk_event_retention PRIMARY KEY (singleton);

ALTER TABLE ONLY public.events
    ADD CONSTRAINT pk_events PRIMARY KEY (id);

ALTER TABLE ONLY public.events_pruned
    ADD CONSTRAINT pk_events_pruned PRIMARY KEY (singleton);

ALTER TABLE ONLY public.mail_messages
    ADD CONSTRAINT pk_mail_messages PRIMARY KEY (id);

ALTER TABLE ONLY public.mail_outbox
    ADD CONSTRAINT pk_mail_outbox PRIMARY KEY (singleton);

ALTER TABLE ONLY public.payment_inbox_requests
    ADD CONSTRAINT pk_payment_inbox_requests PRIMARY KEY (id);

ALTER TABLE ONLY public.payment_inboxes
    ADD CONSTRAINT pk_payment_inboxes PRIMARY KEY (id);

ALTER TABLE ONLY public.proof_chunks
    ADD CONSTRAINT pk_proof_chunks PRIMARY KEY (proof_id, part, seq);

ALTER TABLE ONLY public.proofs
    ADD CONSTRAINT pk_proofs PRIMARY KEY (id);

ALTER TABLE ONLY public.rate_limit_hits
    ADD CONSTRAINT pk_rate_limit_hits PRIMARY KEY (id);

ALTER TABLE ONLY public.task_transitions
    ADD CONSTRAINT pk_task_transitions PRIMARY KEY (id);

ALTER TABLE ONLY public.timers
    ADD CONSTRAINT pk_timers PRIMARY KEY (id);

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT pk_tokens PRIMARY KEY (id);

ALTER TABLE ONLY public.user_departments
    ADD CONSTRAINT pk_user_departments PRIMARY KEY (user_id, department_id);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT pk_users PRIMARY KEY (id);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT pk_webhook_deliveries PRIMARY KEY (id);

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT pk_webhooks PRIMARY KEY (id);

ALTER TABLE ONLY public.work_order_transitions
    ADD CONSTRAINT pk_work_order_transitions PRIMARY KEY (id);

ALTER TABLE ONLY public.work_orders
    ADD CONSTRAINT pk_work_orders PRIMARY KEY (id);

ALTER TABLE ONLY public.customer_ledger_entries
    ADD CONSTRAINT uq_customer_ledger_entries_idempotency_key UNIQUE (idempotency_key);

ALTER TABLE ONLY public.customer_links
    ADD CONSTRAINT uq_customer_links_secret_hash UNIQUE (secret_hash);

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT uq_customers_idempotency_key UNIQUE (idempotency_key);

ALTER TABLE ONLY public.departments
    ADD CONSTRAINT uq_departments_code UNIQUE (code);

ALTER TABLE ONLY public.mail_messages
    ADD CONSTRAINT uq_mail_messages_event_id_recipient UNIQUE (event_id, recipient);

ALTER TABLE ONLY public.payment_inboxes
    ADD CONSTRAINT uq_payment_inboxes_name UNIQUE (name);

ALTER TABLE ONLY public.proofs
    ADD CONSTRAINT uq_proofs_work_order_id_version UNIQUE (work_order_id, version);

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT uq_tokens_token_hash UNIQUE (token_hash);

ALTER TABLE ONLY public.users
    ADD CONSTRAINT uq_users_idempotency_key UNIQUE (idempotency_key);

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT uq_webhook_deliveries_webhook_id_event_id UNIQUE (webhook_id, event_id);

ALTER TABLE ONLY public.work_orders
    ADD CONSTRAINT uq_work_orders_idempotency_key UNIQUE (idempotency_key);

ALTER TABLE ONLY public.work_orders
    ADD CONSTRAINT uq_work_orders_legacy_id UNIQUE (legacy_id);

ALTER TABLE ONLY public.work_orders
    ADD CONSTRAINT uq_work_orders_order_number UNIQUE (order_number);

CREATE INDEX ix_customer_ledger_entries_customer_id_id ON public.customer_ledger_entries USING btree (customer_id, id);

CREATE INDEX ix_customer_ledger_entries_work_order_id_id ON public.customer_ledger_entries USING btree (work_order_id, id);

CREATE INDEX ix_customer_links_work_order_id ON public.customer_links USING btree (work_order_id);

CREATE INDEX ix_department_tasks_last_completed_at ON public.department_tasks USING btree (department_id, last_completed_at);

CREATE INDEX ix_department_tasks_last_started_at ON public.department_tasks USING btree (department_id, last_started_at);

CREATE INDEX ix_department_tasks_queue ON public.department_tasks USING btree (department_id, available_at, id) WHERE (status <> 'COMPLETED'::text);

CREATE INDEX ix_department_tasks_work_order_id ON public.department_tasks USING btree (work_order_id, department_id);

CREATE INDEX ix_events_xid_id ON public.events USING btree (xid, id);

CREATE INDEX ix_mail_messages_due ON public.mail_messages USING btree (next_attempt_at, id) WHERE (status = 'PENDING'::text);

CREATE INDEX ix_mail_messages_status_id ON public.mail_messages USING btree (status, id);

CREATE INDEX ix_mail_messages_work_order_id ON public.mail_messages USING btree (work_order_id);

CREATE INDEX ix_payment_inbox_requests_inbox_id_id ON public.payment_inbox_requests USING btree (inbox_id, id);

CREATE INDEX ix_rate_limit_hits_key_at ON public.rate_limit_hits USING btree (key, at);

CREATE INDEX ix_task_transitions_occurred_at_id ON public.task_transitions USING btree (occurred_at, id);

CREATE INDEX ix_task_transitions_task_id_id ON public.task_transitions USING btree (task_id, id);

CREATE INDEX ix_timers_due ON public.timers USING btree (due_at, id) WHERE (fired_at IS NULL);

CREATE INDEX ix_user_departments_department_id ON public.user_departments USING btree (department_id);

CREATE INDEX ix_webhook_deliveries_pending ON public.webhook_deliveries USING btree (webhook_id, event_xid, event_id) WHERE (status = 'PENDING'::text);

CREATE INDEX ix_webhook_deliveries_webhook_id_id ON public.webhook_deliveries USING btree (webhook_id, id);

CREATE INDEX ix_work_order_transitions_occurred_at_id ON public.work_order_transitions USING btree (occurred_at, id);

CREATE INDEX ix_work_order_transitions_work_order_id_id ON public.work_order_transitions USING btree (work_order_id, id);

CREATE INDEX ix_work_orders_customer_id ON public.work_orders USING btree (customer_id);

CREATE INDEX ix_work_orders_due_at_id ON public.work_orders USING btree (due_at, id);

CREATE INDEX ix_work_orders_last_completed_at ON public.work_orders USING btree (last_completed_at);

CREATE INDEX ix_work_orders_status_id ON public.work_orders USING btree (status, id);

CREATE UNIQUE INDEX uq_department_tasks_one_per_department ON public.department_tasks USING btree (work_order_id, department_id) WHERE (status <> 'REMOVED'::text);

CREATE UNIQUE INDEX uq_departments_one_delivery ON public.departments USING btree ((true)) WHERE (kind = 'DELIVERY'::text);

CREATE UNIQUE INDEX uq_users_email ON public.users USING btree (email);

CREATE UNIQUE INDEX ux_timers_once ON public.timers USING btree (work_order_id, purpose, COALESCE(task_id, (0)::bigint), armed_for);

CREATE TRIGGER customer_ledger_entries_append_only BEFORE DELETE OR UPDATE ON public.customer_ledger_entries FOR EACH ROW EXECUTE FUNCTION public.refuse_ledger_change();

CREATE TRIGGER customer_ledger_entries_no_truncate BEFORE TRUNCATE ON public.customer_ledger_entries FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_history_change();

CREATE TRIGGER events_append_only BEFORE DELETE OR UPDATE ON public.events FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_history_change();

CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON public.events FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_history_change();

CREATE TRIGGER task_transitions_append_only BEFORE DELETE OR UPDATE ON public.task_transitions FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_history_change();

CREATE TRIGGER task_transitions_no_truncate BEFORE TRUNCATE ON public.task_transitions FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_history_change();

CREATE TRIGGER work_order_transitions_append_only BEFORE DELETE OR UPDATE ON public.work_order_transitions FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_history_change();

CREATE TRIGGER work_order_transitions_no_truncate BEFORE TRUNCATE ON public.work_order_transitions FOR EACH STATEMENT EXECUTE FUNCTION public.refuse_history_change();

ALTER TABLE ONLY public.customer_ledger_entries
    ADD CONSTRAINT fk_customer_ledger_entries_customer_id_customers FOREIGN KEY (customer_id) REFERENCES public.customers(id);

ALTER TABLE ONLY public.customer_ledger_entries
    ADD CONSTRAINT fk_customer_ledger_entries_posted_by_users FOREIGN KEY (posted_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.customer_ledger_entries
    ADD CONSTRAINT fk_customer_ledger_entries_work_order_id_work_orders FOREIGN KEY (work_order_id) REFERENCES public.work_orders(id);

ALTER TABLE ONLY public.customer_links
    ADD CONSTRAINT fk_customer_links_created_by_users FOREIGN KEY (created_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.customer_links
    ADD CONSTRAINT fk_customer_links_revoked_by_users FOREIGN KEY (revoked_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.customer_links
    ADD CONSTRAINT fk_customer_links_work_order_id_work_orders FOREIGN KEY (work_order_id) REFERENCES public.work_orders(id);

ALTER TABLE ONLY public.customers
    ADD CONSTRAINT fk_customers_created_by_users FOREIGN KEY (created_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.department_tasks
    ADD CONSTRAINT fk_department_tasks_department_id_departments FOREIGN KEY (department_id) REFERENCES public.departments(id);

ALTER TABLE ONLY public.department_tasks
    ADD CONSTRAINT fk_department_tasks_picked_up_by_users FOREIGN KEY (picked_up_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.department_tasks
    ADD CONSTRAINT fk_department_tasks_work_order_id_work_orders FOREIGN KEY (work_order_id) REFERENCES public.work_orders(id);

ALTER TABLE ONLY public.mail_messages
    ADD CONSTRAINT fk_mail_messages_customer_link_id_customer_links FOREIGN KEY (customer_link_id) REFERENCES public.customer_links(id);

ALTER TABLE ONLY public.mail_messages
    ADD CONSTRAINT fk_mail_messages_work_order_id_work_orders FOREIGN KEY (work_order_id) REFERENCES public.work_orders(id);

ALTER TABLE ONLY public.payment_inbox_requests
    ADD CONSTRAINT fk_payment_inbox_requests_entry_id_customer_ledger_entries FOREIGN KEY (entry_id) REFERENCES public.customer_ledger_entries(id);

ALTER TABLE ONLY public.payment_inbox_requests
    ADD CONSTRAINT fk_payment_inbox_requests_inbox_id_payment_inboxes FOREIGN KEY (inbox_id) REFERENCES public.payment_inboxes(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.payment_inboxes
    ADD CONSTRAINT fk_payment_inboxes_created_by_users FOREIGN KEY (created_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.proof_chunks
    ADD CONSTRAINT fk_proof_chunks_proof_id_proofs FOREIGN KEY (proof_id) REFERENCES public.proofs(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.proofs
    ADD CONSTRAINT fk_proofs_customer_link_id_customer_links FOREIGN KEY (customer_link_id) REFERENCES public.customer_links(id);

ALTER TABLE ONLY public.proofs
    ADD CONSTRAINT fk_proofs_decided_by_users FOREIGN KEY (decided_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.proofs
    ADD CONSTRAINT fk_proofs_uploaded_by_users FOREIGN KEY (uploaded_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.proofs
    ADD CONSTRAINT fk_proofs_work_order_id_work_orders FOREIGN KEY (work_order_id) REFERENCES public.work_orders(id);

ALTER TABLE ONLY public.task_transitions
    ADD CONSTRAINT fk_task_transitions_actor_id_users FOREIGN KEY (actor_id) REFERENCES public.users(id);

ALTER TABLE ONLY public.task_transitions
    ADD CONSTRAINT fk_task_transitions_task_id_department_tasks FOREIGN KEY (task_id) REFERENCES public.department_tasks(id);

ALTER TABLE ONLY public.timers
    ADD CONSTRAINT fk_timers_task_id_department_tasks FOREIGN KEY (task_id) REFERENCES public.department_tasks(id);

ALTER TABLE ONLY public.timers
    ADD CONSTRAINT fk_timers_work_order_id_work_orders FOREIGN KEY (work_order_id) REFERENCES public.work_orders(id);

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT fk_tokens_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id);

ALTER TABLE ONLY public.user_departments
    ADD CONSTRAINT fk_user_departments_department_id_departments FOREIGN KEY (department_id) REFERENCES public.departments(id);

ALTER TABLE ONLY public.user_departments
    ADD CONSTRAINT fk_user_departments_user_id_users FOREIGN KEY (user_id) REFERENCES public.users(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhook_deliveries
    ADD CONSTRAINT fk_webhook_deliveries_webhook_id_webhooks FOREIGN KEY (webhook_id) REFERENCES public.webhooks(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.webhooks
    ADD CONSTRAINT fk_webhooks_created_by_users FOREIGN KEY (created_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.work_order_transitions
    ADD CONSTRAINT fk_work_order_transitions_actor_id_users FOREIGN KEY (actor_id) REFERENCES public.users(id);

ALTER TABLE ONLY public.work_order_transitions
    ADD CONSTRAINT fk_work_order_transitions_department_id_departments FOREIGN KEY (department_id) REFERENCES public.departments(id);

ALTER TABLE ONLY public.work_order_transitions
    ADD CONSTRAINT fk_work_order_transitions_work_order_id_work_orders FOREIGN KEY (work_order_id) REFERENCES public.work_orders(id);

ALTER TABLE ONLY public.work_orders
    ADD CONSTRAINT fk_work_orders_created_by_users FOREIGN KEY (created_by) REFERENCES public.users(id);

ALTER TABLE ONLY public.work_orders
    ADD CONSTRAINT fk_work_orders_customer_id_customers FOREIGN KEY (customer_id) REFERENCES public.customers(id);

ALTER TABLE ONLY public.work_orders
    ADD CONSTRAINT fk_work_orders_held_by_users FOREIGN KEY (held_by) REFERENCES public.users(id);
