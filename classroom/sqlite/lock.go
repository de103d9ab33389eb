package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// LockName is the lock file in the data folder. A server holds an
// exclusive lock on it for as long as its store is open, and the
// operating system drops the lock when the process ends, however it
// ends, so a crashed server never leaves a stale lock behind.
//
// Why one server per folder: SQLite itself would let two processes share
// the file, but each server's live dashboards hear only of the changes
// that server made, so the second one would serve dashboards that miss
// the first one's joins and answers. Several servers share PostgreSQL.
const LockName = "classroom.lock"

// ErrFolderInUse is matched (errors.Is) by the error Open returns when
// another server holds the data folder.
var ErrFolderInUse = errors.New("the data folder is in use by another server")

// FolderInUseError says which folder is held, and by which process when
// the lock file tells.
type FolderInUseError struct {
	Dir string
	PID int // 0 when unknown
}

// Error names the folder and what to do.
func (e *FolderInUseError) Error() string {
	who := "another playground server"
	if e.PID > 0 {
		who += fmt.Sprintf(" (process %d)", e.PID)
	}
	return fmt.Sprintf("%s holds the data folder %s (its lock file %s): stop that server first, or give this one a data folder of its own; servers that share classes use PostgreSQL",
		who, e.Dir, LockName)
}

// Is makes errors.Is(err, ErrFolderInUse) true.
func (e *FolderInUseError) Is(target error) bool { return target == ErrFolderInUse }

// lockFolder takes the data folder's lock, or fails with a
// *FolderInUseError. The returned function releases it and may be called
// more than once.
func lockFolder(dir string) (release func(), err error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	f, err := os.OpenFile(filepath.Join(dir, LockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("classroom data folder %s: lock file: %w", dir, err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("classroom data folder %s: lock file: %w", dir, err)
	}
	if held {
		data, _ := os.ReadFile(f.Name())
		f.Close()
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		return nil, &FolderInUseError{Dir: dir, PID: pid}
	}
	// The process ID is for the message another server gives; the lock,
	// not the file's content, is what excludes.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			unlock(f)
			f.Close()
		})
	}, nil
}
