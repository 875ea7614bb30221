package ghapp

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/go-github/v60/github"
)

// Identity is who the App is on GitHub, as GitHub says: learned at
// start-up (Identify), never configured, since an App's slug is globally
// unique and any default would be some other App's.
type Identity struct {
	AppID int64
	Slug  string
	Name  string
	// BotLogin and BotUserID are the App's bot user, "<slug>[bot]", who
	// authors its comments and, by GitHub's convention, its commits.
	BotLogin  string
	BotUserID int64
}

// CommitName and CommitEmail are the author GitHub shows as the App for a
// commit: "<slug>[bot]" and "<bot user id>+<slug>[bot]@users.noreply.github.com".
func (id Identity) CommitName() string { return id.BotLogin }

// CommitEmail: see CommitName.
func (id Identity) CommitEmail() string {
	return strconv.FormatInt(id.BotUserID, 10) + "+" + id.BotLogin + "@users.noreply.github.com"
}

// ErrNoIdentity is returned by work that needs the App's identity before
// Identify has learned it.
var ErrNoIdentity = errors.New("the App does not know its identity yet: GitHub has not answered GET /app")

// Identify asks GitHub who the App is (GET /app, as the App) and who its
// bot user is (GET /users/<slug>[bot], as an installation), and keeps the answer for the
// comments and check runs it must recognise as its own. The App's id must
// be the configured one: a private key of another App would otherwise act
// under a name that is not its own.
func (a *App) Identify(ctx context.Context) (Identity, error) {
	var app *github.App
	err := a.callAs(ctx, func() (*github.Client, error) { return a.appClient(), nil }, "reading the App's own description (GET /app)", func(gh *github.Client) (err error) {
		app, _, err = gh.Apps.Get(ctx, "")
		return err
	})
	if err != nil {
		return Identity{}, err
	}
	if app.GetSlug() == "" {
		return Identity{}, errors.New("GET /app answered without the App's slug")
	}
	if app.GetID() != a.cfg.AppID {
		return Identity{}, fmt.Errorf("the private key belongs to App %d (%s), not to the configured BENCHGATE_APP_ID %d", app.GetID(), app.GetSlug(), a.cfg.AppID)
	}
	id := Identity{AppID: app.GetID(), Slug: app.GetSlug(), Name: app.GetName(), BotLogin: app.GetSlug() + "[bot]"}
	user, err := a.botUser(ctx, id.BotLogin)
	if err != nil {
		return Identity{}, err
	}
	if user.GetID() == 0 || user.GetType() != "Bot" {
		return Identity{}, fmt.Errorf("GitHub's user %s is not the App's bot user (type %q, id %d)", id.BotLogin, user.GetType(), user.GetID())
	}
	id.BotUserID = user.GetID()
	a.mu.Lock()
	a.identity = &id
	a.mu.Unlock()
	return id, nil
}

// Identity returns what Identify learned; ok is false before it has.
func (a *App) Identity() (id Identity, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.identity == nil {
		return Identity{}, false
	}
	return *a.identity, true
}

// botUser reads the App's bot user. The App's JWT may call only /app
// endpoints, and GitHub Enterprise Server in private mode refuses every
// request without credentials, so it is read as an installation (the
// first GitHub lists). An App installed nowhere has no token to read it
// with, and reads it without credentials, as github.com allows.
func (a *App) botUser(ctx context.Context, login string) (*github.User, error) {
	what := "reading the App's bot user (GET /users/" + login + ")"
	var insts []*github.Installation
	err := a.callAs(ctx, func() (*github.Client, error) { return a.appClient(), nil }, "listing the App's installations to read its bot user", func(gh *github.Client) (err error) {
		insts, _, err = gh.Apps.ListInstallations(ctx, &github.ListOptions{PerPage: 1})
		return err
	})
	if err != nil {
		return nil, err
	}
	var user *github.User
	read := func(gh *github.Client) (err error) {
		user, _, err = gh.Users.Get(ctx, login)
		return err
	}
	if len(insts) == 0 {
		err = a.callAs(ctx, func() (*github.Client, error) { return a.newClient(a.rt), nil }, what, read)
	} else {
		err = a.call(ctx, insts[0].GetID(), what, read)
	}
	return user, err
}
