package store_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/leaselab/playground/classroom"
	"github.com/leaselab/playground/classroom/store"
	"github.com/leaselab/playground/classroom/storetest"
)

func TestOpenPicksSQLiteByDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	s, err := store.Open(context.Background(), store.Config{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "classroom.db")); err != nil {
		t.Fatalf("no SQLite file in the data folder: %v", err)
	}
}

func TestOpenRefusesOtherURLs(t *testing.T) {
	_, err := store.Open(context.Background(), store.Config{DatabaseURL: "mysql://x", DataDir: t.TempDir()})
	if classroom.ErrorCode(err) != classroom.EINVALID {
		t.Fatalf("got %v", err)
	}
}

func TestOpenPicksPostgresByURL(t *testing.T) {
	// A schema of its own: the test database's public schema is shared by
	// every checkout on the machine, whose binaries may know other
	// migrations.
	u := storetest.PostgresSchema(t, "opentest_")
	s, err := store.Open(context.Background(), store.Config{DatabaseURL: u, DataDir: "/nonexistent/never-created"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}
