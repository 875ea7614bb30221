package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

type sqliteBackend struct {
	*engine[*sql.Tx]
	db    *sql.DB
	locks keyedLocks
}

func openSQLite(ctx context.Context, path string, logger *slog.Logger, opts Options) (backend, error) {
	// busy_timeout and BEGIN IMMEDIATE matter only when a second process
	// (a restarted bot overlapping the old one) opens the same file: writers
	// then wait for the lock instead of failing. WAL lets readers proceed.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	if path == ":memory:" {
		dsn = "file::memory:"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("queue: open sqlite: %w", err)
	}
	// River's SQLite driver needs every user to share one connection; it
	// also keeps a ":memory:" database alive, since it lives in that
	// connection.
	db.SetMaxOpenConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	b, err := initSQLite(ctx, db, logger, opts)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return b, nil
}

func initSQLite(ctx context.Context, db *sql.DB, logger *slog.Logger, opts Options) (backend, error) {
	// The file is the namespace; a schema would name an attached database.
	opts.Schema = ""
	driver := riversqlite.New(db)
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("queue: migrator: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return nil, fmt.Errorf("queue: migrate river schema: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS benchgate_delivery (
	delivery_id text PRIMARY KEY,
	kind text NOT NULL,
	created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
)`); err != nil {
		return nil, fmt.Errorf("queue: create delivery table: %w", err)
	}
	for _, stmt := range []string{
		`CREATE TABLE IF NOT EXISTS benchgate_replica (
	id text PRIMARY KEY,
	started_ms integer NOT NULL,
	beat_ms integer NOT NULL,
	every_ms integer NOT NULL,
	rescue_after_ms integer NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS benchgate_lease (
	name text PRIMARY KEY,
	replica_id text NOT NULL,
	expires_ms integer NOT NULL
)`,
		`CREATE TABLE IF NOT EXISTS benchgate_work ` + workTable,
		`CREATE INDEX IF NOT EXISTS benchgate_work_at ON benchgate_work (created_at)`,
		`CREATE TABLE IF NOT EXISTS benchgate_verdict ` + verdictTable,
		`CREATE INDEX IF NOT EXISTS benchgate_verdict_head ON benchgate_verdict (repo, head_sha)`,
		`CREATE TABLE IF NOT EXISTS benchgate_spotcheck ` + ledgerColumns,
		`CREATE INDEX IF NOT EXISTS benchgate_spotcheck_pr ON benchgate_spotcheck (repo, pr)`,
		`CREATE INDEX IF NOT EXISTS benchgate_spotcheck_at ON benchgate_spotcheck (admitted_at)`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("queue: create spot-check ledger: %w", err)
		}
	}
	// SQLite has no ADD COLUMN IF NOT EXISTS.
	var hasAuthor int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('benchgate_spotcheck') WHERE name = 'author'`).Scan(&hasAuthor); err != nil {
		return nil, fmt.Errorf("queue: read the spot-check ledger's columns: %w", err)
	}
	if hasAuthor == 0 {
		if _, err := db.ExecContext(ctx, `ALTER TABLE benchgate_spotcheck ADD COLUMN `+authorColumn); err != nil {
			return nil, fmt.Errorf("queue: add the author to the spot-check ledger: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS benchgate_spotcheck_author ON benchgate_spotcheck (author, admitted_at)`); err != nil {
		return nil, fmt.Errorf("queue: create spot-check ledger: %w", err)
	}
	ops := txOps[*sql.Tx]{
		begin:    func(ctx context.Context) (*sql.Tx, error) { return db.BeginTx(ctx, nil) },
		commit:   func(_ context.Context, tx *sql.Tx) error { return tx.Commit() },
		rollback: func(_ context.Context, tx *sql.Tx) error { return tx.Rollback() },
		recordDelivery: func(ctx context.Context, tx *sql.Tx, id, kind string) (bool, error) {
			res, err := tx.ExecContext(ctx, `INSERT INTO benchgate_delivery (delivery_id, kind) VALUES (?, ?) ON CONFLICT (delivery_id) DO NOTHING`, id, kind)
			if err != nil {
				return false, err
			}
			n, err := res.RowsAffected()
			return n == 1, err
		},
		recordWork: func(ctx context.Context, tx *sql.Tx, key, kind string) (bool, error) {
			res, err := tx.ExecContext(ctx, `INSERT INTO benchgate_work (work_key, kind, created_at) VALUES (?, ?, ?) ON CONFLICT (work_key) DO NOTHING`, key, kind, time.Now().Unix())
			if err != nil {
				return false, err
			}
			n, err := res.RowsAffected()
			return n == 1, err
		},
		cancelRetries: func(ctx context.Context, tx *sql.Tx, r retryTarget) (int, error) {
			res, err := tx.ExecContext(ctx, `UPDATE river_job
SET state = 'cancelled', finalized_at = datetime('now', 'subsec')
WHERE kind = ?
	AND state IN ('retryable', 'scheduled')
	AND json_extract(args, '$.repo') = ?
	AND ((? <> '' AND json_extract(args, '$.head_sha') = ?) OR (? <> 0 AND json_extract(args, '$.pr') = ?))`, KindVerify, r.repo, r.head, r.head, r.pr, r.pr)
			if err != nil {
				return 0, err
			}
			n, err := res.RowsAffected()
			return int(n), err
		},
		// The transaction began IMMEDIATE, holding the database's write
		// lock: the count stays true until the insert commits.
		waiting: func(ctx context.Context, tx *sql.Tx) (n int, err error) {
			err = tx.QueryRowContext(ctx, waitingQuery("river_job")).Scan(&n)
			return n, err
		},
	}
	e, err := newEngine(driver, ops, logger, opts)
	if err != nil {
		return nil, err
	}
	return &sqliteBackend{engine: e, db: db}, nil
}

// supersedeVerify is one UPDATE rather than River's JobCancel per job: the
// state filter and the change happen atomically, so a job a worker fetches
// in the meantime (now running) is never touched. Cancelled is outside the
// unique states, so this also frees the job's unique key.
func (b *sqliteBackend) supersedeVerify(ctx context.Context, repo string, pr int, keepHead string, before time.Time) (int, error) {
	res, err := b.db.ExecContext(ctx, `UPDATE river_job
SET state = 'cancelled', finalized_at = datetime('now', 'subsec')
WHERE kind = ?
	AND state NOT IN ('cancelled', 'discarded')
	AND json_extract(args, '$.repo') = ?
	AND json_extract(args, '$.pr') = ?
	AND json_extract(args, '$.head_sha') <> ?
	AND created_at < ?`, KindVerify, repo, pr, keepHead, before.UTC().Format("2006-01-02 15:04:05.000"))
	if err != nil {
		return 0, fmt.Errorf("queue: supersede: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// withLock: a SQLite queue has one process, so a lock of its own does.
func (b *sqliteBackend) withLock(ctx context.Context, key string, fn func() error) error {
	unlock, err := b.locks.lock(ctx, key)
	if err != nil {
		return err
	}
	defer unlock()
	return fn()
}

func (b *sqliteBackend) tryLock(ctx context.Context, key string, fn func() error) (bool, error) {
	unlock, ok := b.locks.tryLock(key)
	if !ok {
		return false, nil
	}
	defer unlock()
	return true, fn()
}

func (b *sqliteBackend) newerRegenerate(ctx context.Context, repo, branch string, id int64) (bool, error) {
	var n int
	err := b.db.QueryRowContext(ctx, `SELECT count(*) FROM river_job
WHERE kind = ?
	AND state NOT IN ('cancelled', 'discarded')
	AND json_extract(args, '$.repo') = ?
	AND coalesce(json_extract(args, '$.branch'), '') = ?
	AND id > ?`, KindRegenerate, repo, branch, id).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("queue: newer regenerations: %w", err)
	}
	return n > 0, nil
}

func (b *sqliteBackend) newerVerify(ctx context.Context, repo string, pr int, head string, since time.Time) (bool, error) {
	var n int
	err := b.db.QueryRowContext(ctx, `SELECT count(*) FROM river_job
WHERE kind = ?
	AND json_extract(args, '$.repo') = ?
	AND json_extract(args, '$.pr') = ?
	AND json_extract(args, '$.head_sha') <> ?
	AND json_extract(args, '$.head_sha') <> ''
	AND created_at > ?`, KindVerify, repo, pr, head, since.UTC().Format("2006-01-02 15:04:05.000")).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("queue: newer verifications: %w", err)
	}
	return n > 0, nil
}

func (b *sqliteBackend) prune(ctx context.Context, deliveries, replicas time.Duration) error {
	if _, err := b.db.ExecContext(ctx, `DELETE FROM benchgate_delivery WHERE created_at < datetime('now', ?)`,
		fmt.Sprintf("-%d seconds", int64(deliveries/time.Second))); err != nil {
		return fmt.Errorf("queue: prune deliveries: %w", err)
	}
	if _, err := b.db.ExecContext(ctx, `DELETE FROM benchgate_replica WHERE beat_ms < ?`, time.Now().Add(-replicas).UnixMilli()); err != nil {
		return fmt.Errorf("queue: prune replicas: %w", err)
	}
	before := time.Now().Add(-b.opts.WorkRetention).Unix()
	if _, err := b.db.ExecContext(ctx, `DELETE FROM benchgate_work WHERE created_at < ?`, before); err != nil {
		return fmt.Errorf("queue: prune work: %w", err)
	}
	if _, err := b.db.ExecContext(ctx, `DELETE FROM benchgate_verdict WHERE at < ?`, before); err != nil {
		return fmt.Errorf("queue: prune verdicts: %w", err)
	}
	return nil
}

func (b *sqliteBackend) recordVerdict(ctx context.Context, v Verdict) error {
	if _, err := b.db.ExecContext(ctx, `INSERT INTO benchgate_verdict (repo, pr, head_sha, base_sha, base_ref, conclusion, title, at, complete) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (repo, pr) DO UPDATE SET head_sha = excluded.head_sha, base_sha = excluded.base_sha, base_ref = excluded.base_ref, conclusion = excluded.conclusion, title = excluded.title, at = excluded.at, complete = excluded.complete`,
		v.Repo, v.PR, v.HeadSHA, v.BaseSHA, v.BaseRef, v.Conclusion, v.Title, v.At.Unix(), complete(v)); err != nil {
		return fmt.Errorf("queue: record verdict: %w", err)
	}
	return nil
}

func (b *sqliteBackend) lastVerdict(ctx context.Context, repo string, pr int) (Verdict, bool, error) {
	vs, err := b.verdicts(ctx, `WHERE repo = ? AND pr = ?`, repo, pr)
	if err != nil || len(vs) == 0 {
		return Verdict{}, false, err
	}
	return vs[0], true, nil
}

func (b *sqliteBackend) verdictsOnHead(ctx context.Context, repo, head string) ([]Verdict, error) {
	return b.verdicts(ctx, `WHERE repo = ? AND head_sha = ? ORDER BY pr`, repo, head)
}

func (b *sqliteBackend) verdicts(ctx context.Context, where string, args ...any) ([]Verdict, error) {
	rows, err := b.db.QueryContext(ctx, `SELECT repo, pr, head_sha, base_sha, base_ref, conclusion, title, at, complete FROM benchgate_verdict `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("queue: read verdicts: %w", err)
	}
	defer rows.Close()
	var out []Verdict
	for rows.Next() {
		var v Verdict
		var at, done int64
		if err := rows.Scan(&v.Repo, &v.PR, &v.HeadSHA, &v.BaseSHA, &v.BaseRef, &v.Conclusion, &v.Title, &at, &done); err != nil {
			return nil, fmt.Errorf("queue: read verdicts: %w", err)
		}
		v.At, v.Complete = time.Unix(at, 0), done == 1
		out = append(out, v)
	}
	return out, rows.Err()
}

func (b *sqliteBackend) rememberedWork(ctx context.Context, key string) (bool, error) {
	var n int
	if err := b.db.QueryRowContext(ctx, `SELECT count(*) FROM benchgate_work WHERE work_key = ?`, key).Scan(&n); err != nil {
		return false, fmt.Errorf("queue: read work: %w", err)
	}
	return n > 0, nil
}

// Heartbeats are this host's clock in milliseconds: every process on one
// SQLite file runs on one machine.
func (b *sqliteBackend) heartbeat(ctx context.Context, every, rescueAfter time.Duration) error {
	now := time.Now().UnixMilli()
	_, err := b.db.ExecContext(ctx, `INSERT INTO benchgate_replica (id, started_ms, beat_ms, every_ms, rescue_after_ms) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET beat_ms = excluded.beat_ms, every_ms = excluded.every_ms, rescue_after_ms = excluded.rescue_after_ms`,
		b.replicaID(), now, now, every.Milliseconds(), rescueAfter.Milliseconds())
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

func (b *sqliteBackend) forget(ctx context.Context) error {
	if _, err := b.db.ExecContext(ctx, `DELETE FROM benchgate_lease WHERE name = 'maintainer' AND replica_id = ?`, b.replicaID()); err != nil {
		return fmt.Errorf("queue: give up the maintainer's lease: %w", err)
	}
	if _, err := b.db.ExecContext(ctx, `DELETE FROM benchgate_replica WHERE id = ?`, b.replicaID()); err != nil {
		return fmt.Errorf("queue: forget replica: %w", err)
	}
	return nil
}

// lead: see pgBackend.lead.
func (b *sqliteBackend) lead(ctx context.Context, every time.Duration) (bool, error) {
	now := time.Now()
	var holder string
	err := b.db.QueryRowContext(ctx, `INSERT INTO benchgate_lease AS l (name, replica_id, expires_ms) VALUES ('maintainer', ?, ?)
ON CONFLICT (name) DO UPDATE SET replica_id = excluded.replica_id, expires_ms = excluded.expires_ms
	WHERE l.replica_id = excluded.replica_id OR l.expires_ms < ?
RETURNING replica_id`, b.replicaID(), now.Add(staleBeats*every).UnixMilli(), now.UnixMilli()).Scan(&holder)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil && holder == b.replicaID(), err
}

// rescue is one UPDATE per outcome, so a job that finishes meanwhile
// (no longer running) is left alone. River's timestamps here are UTC text,
// compared through julianday.
func (b *sqliteBackend) rescue(ctx context.Context, orphanAfter time.Duration) (int, error) {
	now := time.Now()
	abandoned := `state = 'running'
	AND (julianday('now') - julianday(attempted_at)) * 86400000.0 > ?
	AND NOT EXISTS (SELECT 1 FROM benchgate_replica r
		WHERE r.id = json_extract(river_job.attempted_by, '$[#-1]')
		AND r.beat_ms > ? - ` + fmt.Sprint(staleBeats) + ` * r.every_ms
		AND (r.rescue_after_ms <= 0 OR (julianday('now') - julianday(river_job.attempted_at)) * 86400000.0 < r.rescue_after_ms))`
	note := `jsonb(json_insert(coalesce(json(errors), '[]'), '$[#]', json_object('at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'attempt', attempt, 'error', ?, 'trace', '')))`
	total := 0
	for _, stmt := range []string{
		`UPDATE river_job SET state = 'available', scheduled_at = datetime('now', 'subsec'), errors = ` + note + `
WHERE attempt < max_attempts AND ` + abandoned,
		`UPDATE river_job SET state = 'discarded', finalized_at = datetime('now', 'subsec'), errors = ` + note + `
WHERE attempt >= max_attempts AND ` + abandoned,
	} {
		res, err := b.db.ExecContext(ctx, stmt, rescueNote, orphanAfter.Milliseconds(), now.UnixMilli())
		if err != nil {
			return total, fmt.Errorf("queue: rescue: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, fmt.Errorf("queue: rescue: %w", err)
		}
		total += int(n)
	}
	return total, nil
}

func (b *sqliteBackend) replicas(ctx context.Context) ([]Replica, error) {
	rows, err := b.db.QueryContext(ctx, `SELECT id, beat_ms, rescue_after_ms, beat_ms > ? - `+fmt.Sprint(staleBeats)+` * every_ms FROM benchgate_replica ORDER BY id`, time.Now().UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("queue: replicas: %w", err)
	}
	defer rows.Close()
	var out []Replica
	for rows.Next() {
		var r Replica
		var beat, rescue int64
		if err := rows.Scan(&r.ID, &beat, &rescue, &r.Live); err != nil {
			return nil, fmt.Errorf("queue: replicas: %w", err)
		}
		r.Beat, r.RescueAfter = time.UnixMilli(beat), time.Duration(rescue)*time.Millisecond
		out = append(out, r)
	}
	return out, rows.Err()
}

func (b *sqliteBackend) stats(ctx context.Context) (Stats, error) {
	s := Stats{Counts: map[string]map[string]int{}}
	rows, err := b.db.QueryContext(ctx, `SELECT kind, state, count(*) FROM river_job GROUP BY kind, state`)
	if err != nil {
		return s, fmt.Errorf("queue: stats: %w", err)
	}
	for rows.Next() {
		var kind, state string
		var n int
		if err := rows.Scan(&kind, &state, &n); err != nil {
			_ = rows.Close()
			return s, fmt.Errorf("queue: stats: %w", err)
		}
		addCount(s.Counts, kind, state, n)
	}
	if err := rows.Close(); err != nil {
		return s, fmt.Errorf("queue: stats: %w", err)
	}
	if err := rows.Err(); err != nil {
		return s, fmt.Errorf("queue: stats: %w", err)
	}
	var age sql.NullFloat64
	if err := b.db.QueryRowContext(ctx, `SELECT (julianday('now') - julianday(min(scheduled_at))) * 86400.0 FROM river_job WHERE state = 'available'`).Scan(&age); err != nil {
		return s, fmt.Errorf("queue: stats: %w", err)
	}
	s.OldestAvailableAge = ageFromSeconds(age.Float64)
	return s, nil
}

func (b *sqliteBackend) close() error { return b.db.Close() }

// admit runs in a BEGIN IMMEDIATE transaction (see openSQLite), which
// holds the database's write lock from the start: admissions are
// serialised even across processes.
func (b *sqliteBackend) admit(ctx context.Context, now time.Time, sc SpotCheck, decide func(Usage) Grant) (g Grant, again bool, err error) {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return g, false, fmt.Errorf("queue: admit: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	err = tx.QueryRowContext(ctx, `SELECT reserved_usd FROM benchgate_spotcheck WHERE spot_key = ?`, sc.Key).Scan(&g.MaxUSD)
	switch {
	case err == nil:
		g.Admitted = true
		return g, true, tx.Commit()
	case !errors.Is(err, sql.ErrNoRows):
		return g, false, fmt.Errorf("queue: admit: %w", err)
	}
	var u Usage
	q := usageQuery("benchgate_spotcheck", func(int) string { return "?" })
	since := now.Add(-24 * time.Hour).Unix()
	if err = tx.QueryRowContext(ctx, q, sc.Repo, sc.PR, sc.Repo, since, DayStart(now).Unix(), sc.Author, since).Scan(&u.PR, &u.RepoDay, &u.SpentDay, &u.AuthorDay); err != nil {
		return g, false, fmt.Errorf("queue: admit: usage: %w", err)
	}
	g = decide(u)
	if g.Admitted {
		if _, err = tx.ExecContext(ctx, `INSERT INTO benchgate_spotcheck (spot_key, repo, pr, admitted_at, reserved_usd, author) VALUES (?, ?, ?, ?, ?, ?)`,
			sc.Key, sc.Repo, sc.PR, now.Unix(), g.MaxUSD, sc.Author); err != nil {
			return g, false, fmt.Errorf("queue: admit: record: %w", err)
		}
	}
	if err = tx.Commit(); err != nil {
		return g, false, fmt.Errorf("queue: admit: commit: %w", err)
	}
	return g, false, nil
}

func (b *sqliteBackend) settle(ctx context.Context, key string, calls int, usd float64) error {
	if _, err := b.db.ExecContext(ctx, `UPDATE benchgate_spotcheck SET calls = ?, spent_usd = ? WHERE spot_key = ?`, calls, usd, key); err != nil {
		return fmt.Errorf("queue: settle: %w", err)
	}
	return nil
}

func (b *sqliteBackend) release(ctx context.Context, key string) error {
	if _, err := b.db.ExecContext(ctx, `DELETE FROM benchgate_spotcheck WHERE spot_key = ?`, key); err != nil {
		return fmt.Errorf("queue: release: %w", err)
	}
	return nil
}

func (b *sqliteBackend) spentSince(ctx context.Context, since time.Time) (float64, error) {
	var usd float64
	if err := b.db.QueryRowContext(ctx, `SELECT coalesce(sum(coalesce(spent_usd, reserved_usd)), 0) FROM benchgate_spotcheck WHERE admitted_at >= ?`, since.Unix()).Scan(&usd); err != nil {
		return 0, fmt.Errorf("queue: spend: %w", err)
	}
	return usd, nil
}

func (b *sqliteBackend) waiting(ctx context.Context) (int, error) {
	var n int
	if err := b.db.QueryRowContext(ctx, waitingQuery("river_job")).Scan(&n); err != nil {
		return 0, fmt.Errorf("queue: count waiting jobs: %w", err)
	}
	return n, nil
}

func addCount(m map[string]map[string]int, kind, state string, n int) {
	if m[kind] == nil {
		m[kind] = map[string]int{}
	}
	m[kind][state] += n
}

// ageFromSeconds clamps at zero: a job scheduled slightly in the future by
// another host's clock is not "waiting".
func ageFromSeconds(sec float64) time.Duration {
	if sec <= 0 {
		return 0
	}
	return time.Duration(sec * float64(time.Second))
}

// keyedLocks are mutexes by name, created as needed and dropped when free.
type keyedLocks struct {
	mu   sync.Mutex
	held map[string]chan struct{}
}

// tryLock takes key if it is free.
func (k *keyedLocks) tryLock(key string) (unlock func(), ok bool) {
	unlock, _ = k.take(key)
	return unlock, unlock != nil
}

// lock waits for key to be free (or ctx to end) and takes it.
func (k *keyedLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	for {
		unlock, busy := k.take(key)
		if unlock != nil {
			return unlock, nil
		}
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, fmt.Errorf("queue: lock %s: %w", key, ctx.Err())
		}
	}
}

// take takes key if it is free; otherwise busy closes when its holder
// lets it go.
func (k *keyedLocks) take(key string) (unlock func(), busy <-chan struct{}) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.held == nil {
		k.held = map[string]chan struct{}{}
	}
	if held, ok := k.held[key]; ok {
		return nil, held
	}
	done := make(chan struct{})
	k.held[key] = done
	return func() {
		k.mu.Lock()
		delete(k.held, key)
		k.mu.Unlock()
		close(done)
	}, nil
}
