package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

type pgBackend struct {
	*engine[pgx.Tx]
	pool *pgxpool.Pool
	// jobs and deliveries are the schema-qualified table names.
	jobs, deliveries, ledger string
}

func openPostgres(ctx context.Context, url string, logger *slog.Logger, opts Options) (backend, error) {
	pool, err := pgxpool.New(ctx, url)
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
	ledger := qual("benchgate_spotcheck")
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS ` + ledger + ` ` + ledgerColumns,
		`CREATE INDEX IF NOT EXISTS benchgate_spotcheck_pr ON ` + ledger + ` (repo, pr)`,
		`CREATE INDEX IF NOT EXISTS benchgate_spotcheck_at ON ` + ledger + ` (admitted_at)`,
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
	}
	e, err := newEngine(driver, ops, logger, opts)
	if err != nil {
		return nil, err
	}
	return &pgBackend{engine: e, pool: pool, jobs: qual("river_job"), deliveries: deliveries, ledger: ledger}, nil
}

// supersedeVerify: see sqliteBackend.supersedeVerify for why this is a
// single UPDATE.
func (b *pgBackend) supersedeVerify(ctx context.Context, repo string, pr int, keepHead string, before time.Time) (int, error) {
	tag, err := b.pool.Exec(ctx, `UPDATE `+b.jobs+`
SET state = 'cancelled', finalized_at = now()
WHERE kind = $1
	AND state IN ('available', 'pending', 'retryable', 'scheduled')
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
	conn, err := b.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("queue: lock %s: %w", key, err)
	}
	defer conn.Release()
	// hashtextextended is PostgreSQL's own 64-bit hash of a text.
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended($1, 0))`, "benchgate:"+key); err != nil {
		return fmt.Errorf("queue: lock %s: %w", key, err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, "benchgate:"+key)
	return fn()
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

func (b *pgBackend) pruneDeliveries(ctx context.Context, olderThan time.Duration) error {
	_, err := b.pool.Exec(ctx, `DELETE FROM `+b.deliveries+` WHERE created_at < now() - make_interval(secs => $1)`,
		olderThan.Seconds())
	return err
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
	var pr, repoDay int64
	q := usageQuery(b.ledger, func(i int) string { return fmt.Sprintf("$%d", i) })
	if err = tx.QueryRow(ctx, q, sc.Repo, int64(sc.PR), now.Add(-24*time.Hour).Unix(), DayStart(now).Unix()).Scan(&pr, &repoDay, &u.SpentDay); err != nil {
		return g, false, fmt.Errorf("queue: admit: usage: %w", err)
	}
	u.PR, u.RepoDay = int(pr), int(repoDay)
	g = decide(u)
	if g.Admitted {
		if _, err = tx.Exec(ctx, `INSERT INTO `+b.ledger+` (spot_key, repo, pr, admitted_at, reserved_usd) VALUES ($1, $2, $3, $4, $5)`,
			sc.Key, sc.Repo, int64(sc.PR), now.Unix(), g.MaxUSD); err != nil {
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

func (b *pgBackend) spentSince(ctx context.Context, since time.Time) (float64, error) {
	var usd float64
	if err := b.pool.QueryRow(ctx, `SELECT coalesce(sum(coalesce(spent_usd, reserved_usd)), 0)::float8 FROM `+b.ledger+` WHERE admitted_at >= $1`, since.Unix()).Scan(&usd); err != nil {
		return 0, fmt.Errorf("queue: spend: %w", err)
	}
	return usd, nil
}

func (b *pgBackend) waiting(ctx context.Context) (int, error) {
	var n int64
	if err := b.pool.QueryRow(ctx, `SELECT count(*) FROM `+b.jobs+` WHERE state IN ('available', 'pending', 'retryable', 'scheduled')`).Scan(&n); err != nil {
		return 0, fmt.Errorf("queue: count waiting jobs: %w", err)
	}
	return int(n), nil
}
