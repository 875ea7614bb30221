package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

type pgBackend struct {
	*engine[pgx.Tx]
	pool *pgxpool.Pool
	// jobs, deliveries, ledger, replicaTable and lease are the
	// schema-qualified table names; jobs also namespaces advisory locks,
	// so that queues in other schemas of the database never contend for
	// them.
	jobs, deliveries, ledger, replicaTable, lease string
	// work and verdicts are the memory of done work (see work.go).
	work, verdicts string
}

// minPoolConns is the connection pool's size unless the URL sets
// pool_max_conns. pgx's default (4 on a small machine) is too few: River
// keeps one for LISTEN, and a job holding a pull request's lock (a
// session advisory lock, on a connection of its own) asks the queue
// again while it holds it, so workers holding locks could take every
// connection and wait on each other.
const minPoolConns = 32

func openPostgres(ctx context.Context, url string, logger *slog.Logger, opts Options) (backend, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("queue: open postgres: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = max(cfg.MaxConns, minPoolConns)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("queue: open postgres: %w", err)
	}
	b, err := initPostgres(ctx, pool, logger, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return b, nil
}

func initPostgres(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger, opts Options) (backend, error) {
	qual := func(name string) string { return pgx.Identifier{name}.Sanitize() }
	if opts.Schema != "" {
		if _, err := pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{opts.Schema}.Sanitize()); err != nil {
			return nil, fmt.Errorf("queue: create schema: %w", err)
		}
		qual = func(name string) string { return pgx.Identifier{opts.Schema, name}.Sanitize() }
	}
	driver := riverpgxv5.New(pool)
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: logger, Schema: opts.Schema})
	if err != nil {
		return nil, fmt.Errorf("queue: migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("queue: migrate river schema: %w", err)
	}
	deliveries := qual("benchgate_delivery")
	if _, err := pool.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+deliveries+` (
	delivery_id text PRIMARY KEY,
	kind text NOT NULL,
	created_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
		return nil, fmt.Errorf("queue: create delivery table: %w", err)
	}
	ledger, replicas, lease := qual("benchgate_spotcheck"), qual("benchgate_replica"), qual("benchgate_lease")
	work, verdicts := qual("benchgate_work"), qual("benchgate_verdict")
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + work + ` ` + workTable,
		`CREATE INDEX IF NOT EXISTS benchgate_work_at ON ` + work + ` (created_at)`,
		`CREATE TABLE IF NOT EXISTS ` + verdicts + ` ` + verdictTable,
		`CREATE INDEX IF NOT EXISTS benchgate_verdict_head ON ` + verdicts + ` (repo, head_sha)`,
		// Beats use the database's clock: replicas on different hosts
		// then agree on who is stale.
		`CREATE TABLE IF NOT EXISTS ` + replicas + ` (
	id text PRIMARY KEY,
	started_at timestamptz NOT NULL DEFAULT now(),
	beat_at timestamptz NOT NULL DEFAULT now(),
	every_ms bigint NOT NULL,
	rescue_after_ms bigint NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS ` + lease + ` (
	name text PRIMARY KEY,
	replica_id text NOT NULL,
	expires_at timestamptz NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS ` + ledger + ` ` + ledgerColumns,
		`ALTER TABLE ` + ledger + ` ADD COLUMN IF NOT EXISTS ` + authorColumn,
		`CREATE INDEX IF NOT EXISTS benchgate_spotcheck_pr ON ` + ledger + ` (repo, pr)`,
		`CREATE INDEX IF NOT EXISTS benchgate_spotcheck_at ON ` + ledger + ` (admitted_at)`,
		`CREATE INDEX IF NOT EXISTS benchgate_spotcheck_author ON ` + ledger + ` (author, admitted_at)`,
	} {
		if _, err := pool.Exec(ctx, stmt); err != nil {
			return nil, fmt.Errorf("queue: create spot-check ledger: %w", err)
		}
	}
	insertDelivery := `INSERT INTO ` + deliveries + ` (delivery_id, kind) VALUES ($1, $2) ON CONFLICT (delivery_id) DO NOTHING`
	ops := txOps[pgx.Tx]{
		begin:    func(ctx context.Context) (pgx.Tx, error) { return pool.Begin(ctx) },
		commit:   func(ctx context.Context, tx pgx.Tx) error { return tx.Commit(ctx) },
		rollback: func(ctx context.Context, tx pgx.Tx) error { return tx.Rollback(ctx) },
		recordDelivery: func(ctx context.Context, tx pgx.Tx, id, kind string) (bool, error) {
			// Concurrent inserts of the same id block on the primary key
			// until the first commits, then see the conflict: exactly one
			// wins.
			tag, err := tx.Exec(ctx, insertDelivery, id, kind)
			if err != nil {
				return false, err
			}
			return tag.RowsAffected() == 1, nil
		},
		recordWork: func(ctx context.Context, tx pgx.Tx, key, kind string) (bool, error) {
			// As with deliveries: concurrent inserts of one key wait on
			// the primary key, and exactly one wins.
			tag, err := tx.Exec(ctx, `INSERT INTO `+work+` (work_key, kind, created_at) VALUES ($1, $2, $3) ON CONFLICT (work_key) DO NOTHING`, key, kind, time.Now().Unix())
			if err != nil {
				return false, err
			}
			return tag.RowsAffected() == 1, nil
		},
		cancelRetries: func(ctx context.Context, tx pgx.Tx, r retryTarget) (int, error) {
			tag, err := tx.Exec(ctx, `UPDATE `+qual("river_job")+`
SET state = 'cancelled', finalized_at = now()
WHERE kind = $1
	AND state IN ('retryable', 'scheduled')
	AND args->>'repo' = $2
	AND (($3 <> '' AND args->>'head_sha' = $3) OR ($4 <> 0 AND (args->>'pr')::bigint = $4))`, KindVerify, r.repo, r.head, int64(r.pr))
			if err != nil {
				return 0, err
			}
			return int(tag.RowsAffected()), nil
		},
		waiting: func(ctx context.Context, tx pgx.Tx) (int, error) {
			// Every admission takes this lock until its transaction
			// ends, so two replicas cannot both see room for one job.
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "benchgate:admission:"+qual("river_job")); err != nil {
				return 0, err
			}
			var n int64
			err := tx.QueryRow(ctx, waitingQuery(qual("river_job"))).Scan(&n)
			return int(n), err
		},
	}
	e, err := newEngine(driver, ops, logger, opts)
	if err != nil {
		return nil, err
	}
	return &pgBackend{engine: e, pool: pool, jobs: qual("river_job"), deliveries: deliveries, ledger: ledger, replicaTable: replicas, lease: lease, work: work, verdicts: verdicts}, nil
}

// start refuses more workers than the pool can serve: each may hold a
// lock's connection and ask the queue on another, while River keeps some
// of its own.
func (b *pgBackend) start(ctx context.Context, h Handlers, workers int, ready func(context.Context) error) error {
	if need, have := connsFor(workers), int(b.pool.Config().MaxConns); need > have {
		return fmt.Errorf("queue: %d workers need up to %d database connections, but the pool has %d: lower --workers, or raise pool_max_conns in BENCHGATE_DATABASE_URL (e.g. ?pool_max_conns=%d)", workers, need, have, need)
	}
	return b.engine.start(ctx, h, workers, ready)
}

// connsFor is the most connections workers can need at once: two each,
// and four for River's listener, producers and the queue's upkeep.
func connsFor(workers int) int { return 2*workers + 4 }

// supersedeVerify: see sqliteBackend.supersedeVerify for why this is a
// single UPDATE.
func (b *pgBackend) supersedeVerify(ctx context.Context, repo string, pr int, keepHead string, before time.Time) (int, error) {
	tag, err := b.pool.Exec(ctx, `UPDATE `+b.jobs+`
SET state = 'cancelled', finalized_at = now()
WHERE kind = $1
	AND state NOT IN ('cancelled', 'discarded')
	AND args->>'repo' = $2
	AND (args->>'pr')::bigint = $3
	AND args->>'head_sha' <> $4
	AND created_at < $5`, KindVerify, repo, int64(pr), keepHead, before)
	if err != nil {
		return 0, fmt.Errorf("queue: supersede: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

func (b *pgBackend) withLock(ctx context.Context, key string, fn func() error) error {
	_, err := b.locked(ctx, key, true, fn)
	return err
}

func (b *pgBackend) tryLock(ctx context.Context, key string, fn func() error) (bool, error) {
	return b.locked(ctx, key, false, fn)
}

// locked runs fn holding a session advisory lock on a pooled connection,
// waiting for it or, unless wait, giving up when another session holds
// it.
func (b *pgBackend) locked(ctx context.Context, key string, wait bool, fn func() error) (bool, error) {
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("queue: lock %s: %w", key, err)
	}
	defer conn.Release()
	// hashtextextended is PostgreSQL's own 64-bit hash of a text.
	name := "benchgate:" + b.jobs + ":" + key
	if wait {
		if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, name); err != nil {
			return false, fmt.Errorf("queue: lock %s: %w", key, err)
		}
	} else {
		var ok bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended($1, 0))`, name).Scan(&ok); err != nil {
			return false, fmt.Errorf("queue: lock %s: %w", key, err)
		}
		if !ok {
			return false, nil
		}
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, name)
	return true, fn()
}

func (b *pgBackend) newerRegenerate(ctx context.Context, repo, branch string, id int64) (bool, error) {
	var n int64
	err := b.pool.QueryRow(ctx, `SELECT count(*) FROM `+b.jobs+`
WHERE kind = $1
	AND state NOT IN ('cancelled', 'discarded')
	AND args->>'repo' = $2
	AND coalesce(args->>'branch', '') = $3
	AND id > $4`, KindRegenerate, repo, branch, id).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("queue: newer regenerations: %w", err)
	}
	return n > 0, nil
}

func (b *pgBackend) newerVerify(ctx context.Context, repo string, pr int, head string, since time.Time) (bool, error) {
	var n int64
	err := b.pool.QueryRow(ctx, `SELECT count(*) FROM `+b.jobs+`
WHERE kind = $1
	AND args->>'repo' = $2
	AND (args->>'pr')::bigint = $3
	AND args->>'head_sha' <> $4
	AND args->>'head_sha' <> ''
	AND created_at > $5`, KindVerify, repo, int64(pr), head, since).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("queue: newer verifications: %w", err)
	}
	return n > 0, nil
}

func (b *pgBackend) prune(ctx context.Context, deliveries, replicas time.Duration) error {
	if _, err := b.pool.Exec(ctx, `DELETE FROM `+b.deliveries+` WHERE created_at < now() - make_interval(secs => $1)`,
		deliveries.Seconds()); err != nil {
		return fmt.Errorf("queue: prune deliveries: %w", err)
	}
	if _, err := b.pool.Exec(ctx, `DELETE FROM `+b.replicaTable+` WHERE beat_at < now() - make_interval(secs => $1)`,
		replicas.Seconds()); err != nil {
		return fmt.Errorf("queue: prune replicas: %w", err)
	}
	before := time.Now().Add(-b.opts.WorkRetention).Unix()
	if _, err := b.pool.Exec(ctx, `DELETE FROM `+b.work+` WHERE created_at < $1`, before); err != nil {
		return fmt.Errorf("queue: prune work: %w", err)
	}
	if _, err := b.pool.Exec(ctx, `DELETE FROM `+b.verdicts+` WHERE at < $1`, before); err != nil {
		return fmt.Errorf("queue: prune verdicts: %w", err)
	}
	return nil
}

func (b *pgBackend) recordVerdict(ctx context.Context, v Verdict) error {
	if _, err := b.pool.Exec(ctx, `INSERT INTO `+b.verdicts+` (repo, pr, head_sha, base_sha, base_ref, conclusion, title, at, complete) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (repo, pr) DO UPDATE SET head_sha = excluded.head_sha, base_sha = excluded.base_sha, base_ref = excluded.base_ref, conclusion = excluded.conclusion, title = excluded.title, at = excluded.at, complete = excluded.complete`,
		v.Repo, int64(v.PR), v.HeadSHA, v.BaseSHA, v.BaseRef, v.Conclusion, v.Title, v.At.Unix(), complete(v)); err != nil {
		return fmt.Errorf("queue: record verdict: %w", err)
	}
	return nil
}

func (b *pgBackend) lastVerdict(ctx context.Context, repo string, pr int) (Verdict, bool, error) {
	vs, err := b.readVerdicts(ctx, `WHERE repo = $1 AND pr = $2`, repo, int64(pr))
	if err != nil || len(vs) == 0 {
		return Verdict{}, false, err
	}
	return vs[0], true, nil
}

func (b *pgBackend) verdictsOnHead(ctx context.Context, repo, head string) ([]Verdict, error) {
	return b.readVerdicts(ctx, `WHERE repo = $1 AND head_sha = $2 ORDER BY pr`, repo, head)
}

func (b *pgBackend) readVerdicts(ctx context.Context, where string, args ...any) ([]Verdict, error) {
	rows, err := b.pool.Query(ctx, `SELECT repo, pr, head_sha, base_sha, base_ref, conclusion, title, at, complete FROM `+b.verdicts+` `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("queue: read verdicts: %w", err)
	}
	defer rows.Close()
	var out []Verdict
	for rows.Next() {
		var v Verdict
		var pr, at, done int64
		if err := rows.Scan(&v.Repo, &pr, &v.HeadSHA, &v.BaseSHA, &v.BaseRef, &v.Conclusion, &v.Title, &at, &done); err != nil {
			return nil, fmt.Errorf("queue: read verdicts: %w", err)
		}
		v.PR, v.At, v.Complete = int(pr), time.Unix(at, 0), done == 1
		out = append(out, v)
	}
	return out, rows.Err()
}

func (b *pgBackend) rememberedWork(ctx context.Context, key string) (bool, error) {
	var n int64
	if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM `+b.work+` WHERE work_key = $1`, key).Scan(&n); err != nil {
		return false, fmt.Errorf("queue: read work: %w", err)
	}
	return n > 0, nil
}

func (b *pgBackend) heartbeat(ctx context.Context, every, rescueAfter time.Duration) error {
	_, err := b.pool.Exec(ctx, `INSERT INTO `+b.replicaTable+` (id, every_ms, rescue_after_ms) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET beat_at = now(), every_ms = excluded.every_ms, rescue_after_ms = excluded.rescue_after_ms`,
		b.replicaID(), every.Milliseconds(), rescueAfter.Milliseconds())
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

func (b *pgBackend) forget(ctx context.Context) error {
	// Giving the lease back lets another replica take over at its next
	// heartbeat instead of after the lease runs out.
	if _, err := b.pool.Exec(ctx, `DELETE FROM `+b.lease+` WHERE name = 'maintainer' AND replica_id = $1`, b.replicaID()); err != nil {
		return fmt.Errorf("queue: give up the maintainer's lease: %w", err)
	}
	if _, err := b.pool.Exec(ctx, `DELETE FROM `+b.replicaTable+` WHERE id = $1`, b.replicaID()); err != nil {
		return fmt.Errorf("queue: forget replica: %w", err)
	}
	return nil
}

// lead takes or renews the maintainer's lease, which lasts three
// heartbeats of the database's clock: a replica that dies, freezes or is
// cut off stops renewing it, and another takes it over.
func (b *pgBackend) lead(ctx context.Context, every time.Duration) (bool, error) {
	var holder string
	err := b.pool.QueryRow(ctx, `INSERT INTO `+b.lease+` AS l (name, replica_id, expires_at) VALUES ('maintainer', $1, now() + make_interval(secs => $2))
ON CONFLICT (name) DO UPDATE SET replica_id = excluded.replica_id, expires_at = excluded.expires_at
	WHERE l.replica_id = excluded.replica_id OR l.expires_at < now()
RETURNING replica_id`, b.replicaID(), (staleBeats * every).Seconds()).Scan(&holder)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil && holder == b.replicaID(), err
}

// rescue is one UPDATE per outcome, so a job that finishes meanwhile (no
// longer running) is left alone. Times are the database's.
func (b *pgBackend) rescue(ctx context.Context, orphanAfter time.Duration) (int, error) {
	abandoned := `state = 'running'
	AND attempted_at < now() - make_interval(secs => $2)
	AND NOT EXISTS (SELECT 1 FROM ` + b.replicaTable + ` r
		WHERE r.id = attempted_by[array_length(attempted_by, 1)]
		AND r.beat_at > now() - make_interval(secs => ` + fmt.Sprint(staleBeats) + ` * r.every_ms / 1000.0)
		AND (r.rescue_after_ms <= 0 OR attempted_at > now() - make_interval(secs => r.rescue_after_ms / 1000.0)))`
	note := `array_append(errors, jsonb_build_object('at', now(), 'attempt', attempt, 'error', $1::text, 'trace', ''))`
	total := 0
	for _, stmt := range []string{
		`UPDATE ` + b.jobs + ` SET state = 'available', scheduled_at = now(), errors = ` + note + `
WHERE attempt < max_attempts AND ` + abandoned,
		`UPDATE ` + b.jobs + ` SET state = 'discarded', finalized_at = now(), errors = ` + note + `
WHERE attempt >= max_attempts AND ` + abandoned,
	} {
		tag, err := b.pool.Exec(ctx, stmt, rescueNote, orphanAfter.Seconds())
		if err != nil {
			return total, fmt.Errorf("queue: rescue: %w", err)
		}
		total += int(tag.RowsAffected())
	}
	return total, nil
}

func (b *pgBackend) replicas(ctx context.Context) ([]Replica, error) {
	rows, err := b.pool.Query(ctx, `SELECT id, beat_at, rescue_after_ms, beat_at > now() - make_interval(secs => `+fmt.Sprint(staleBeats)+` * every_ms / 1000.0) FROM `+b.replicaTable+` ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("queue: replicas: %w", err)
	}
	var out []Replica
	var r Replica
	var rescue int64
	_, err = pgx.ForEachRow(rows, []any{&r.ID, &r.Beat, &rescue, &r.Live}, func() error {
		r.RescueAfter = time.Duration(rescue) * time.Millisecond
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("queue: replicas: %w", err)
	}
	return out, nil
}

func (b *pgBackend) stats(ctx context.Context) (Stats, error) {
	s := Stats{Counts: map[string]map[string]int{}}
	rows, err := b.pool.Query(ctx, `SELECT kind, state::text, count(*) FROM `+b.jobs+` GROUP BY kind, state`)
	if err != nil {
		return s, fmt.Errorf("queue: stats: %w", err)
	}
	var kind, state string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&kind, &state, &n}, func() error {
		addCount(s.Counts, kind, state, int(n))
		return nil
	})
	if err != nil {
		return s, fmt.Errorf("queue: stats: %w", err)
	}
	var age *float64
	if err := b.pool.QueryRow(ctx, `SELECT extract(epoch FROM now() - min(scheduled_at))::float8 FROM `+b.jobs+` WHERE state = 'available'`).Scan(&age); err != nil {
		return s, fmt.Errorf("queue: stats: %w", err)
	}
	if age != nil {
		s.OldestAvailableAge = ageFromSeconds(*age)
	}
	return s, nil
}

func (b *pgBackend) close() error {
	b.pool.Close()
	return nil
}

// admit serialises admissions with a transaction-scoped advisory lock on
// the ledger's name, so that concurrent spot-checks (from any process)
// cannot all see the same remaining budget.
func (b *pgBackend) admit(ctx context.Context, now time.Time, sc SpotCheck, decide func(Usage) Grant) (g Grant, again bool, err error) {
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return g, false, fmt.Errorf("queue: admit: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext($1))`, b.ledger); err != nil {
		return g, false, fmt.Errorf("queue: admit: lock: %w", err)
	}
	err = tx.QueryRow(ctx, `SELECT reserved_usd FROM `+b.ledger+` WHERE spot_key = $1`, sc.Key).Scan(&g.MaxUSD)
	switch {
	case err == nil:
		g.Admitted = true
		return g, true, tx.Commit(ctx)
	case !errors.Is(err, pgx.ErrNoRows):
		return g, false, fmt.Errorf("queue: admit: %w", err)
	}
	var u Usage
	var pr, repoDay, authorDay int64
	q := usageQuery(b.ledger, func(i int) string { return fmt.Sprintf("$%d", i) })
	if err = tx.QueryRow(ctx, q, sc.Repo, int64(sc.PR), now.Add(-24*time.Hour).Unix(), DayStart(now).Unix(), sc.Author).Scan(&pr, &repoDay, &u.SpentDay, &authorDay); err != nil {
		return g, false, fmt.Errorf("queue: admit: usage: %w", err)
	}
	u.PR, u.RepoDay, u.AuthorDay = int(pr), int(repoDay), int(authorDay)
	g = decide(u)
	if g.Admitted {
		if _, err = tx.Exec(ctx, `INSERT INTO `+b.ledger+` (spot_key, repo, pr, admitted_at, reserved_usd, author) VALUES ($1, $2, $3, $4, $5, $6)`,
			sc.Key, sc.Repo, int64(sc.PR), now.Unix(), g.MaxUSD, sc.Author); err != nil {
			return g, false, fmt.Errorf("queue: admit: record: %w", err)
		}
	}
	if err = tx.Commit(ctx); err != nil {
		return g, false, fmt.Errorf("queue: admit: commit: %w", err)
	}
	return g, false, nil
}

func (b *pgBackend) settle(ctx context.Context, key string, calls int, usd float64) error {
	if _, err := b.pool.Exec(ctx, `UPDATE `+b.ledger+` SET calls = $1, spent_usd = $2 WHERE spot_key = $3`, calls, usd, key); err != nil {
		return fmt.Errorf("queue: settle: %w", err)
	}
	return nil
}

func (b *pgBackend) release(ctx context.Context, key string) error {
	if _, err := b.pool.Exec(ctx, `DELETE FROM `+b.ledger+` WHERE spot_key = $1`, key); err != nil {
		return fmt.Errorf("queue: release: %w", err)
	}
	return nil
}

func (b *pgBackend) spentSince(ctx context.Context, since time.Time) (float64, error) {
	var usd float64
	if err := b.pool.QueryRow(ctx, `SELECT coalesce(sum(coalesce(spent_usd, reserved_usd)), 0)::float8 FROM `+b.ledger+` WHERE admitted_at >= $1`, since.Unix()).Scan(&usd); err != nil {
		return 0, fmt.Errorf("queue: spend: %w", err)
	}
	return usd, nil
}

func (b *pgBackend) waiting(ctx context.Context) (int, error) {
	var n int64
	if err := b.pool.QueryRow(ctx, waitingQuery(b.jobs)).Scan(&n); err != nil {
		return 0, fmt.Errorf("queue: count waiting jobs: %w", err)
	}
	return int(n), nil
}
