// Package input checks what a user hands rumbench before anything runs: the files it reads
// (regular files of a bounded size), the names that become part of a file name (a run's
// label, a split run's group), and how a message echoes a value the user gave (cut when long).
package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxFileBytes is the size limit of the files a user names on the command line: a run file
// (-f), a YCSB property file (-P), a LinkBench --mix or --properties file, a --server-config
// file. They hold settings, a few KB; 1 MiB leaves room and refuses a wrong file at once.
const MaxFileBytes = 1 << 20

// EchoChars is how many characters of a value a message echoes (see Short).
const EchoChars = 60

// Short returns s as a message echoes it: s itself when it has at most EchoChars characters,
// else its first EchoChars characters and "…(N bytes)", N the length of s in bytes. A cut
// never splits a UTF-8 sequence.
func Short(s string) string {
	if utf8.RuneCountInString(s) <= EchoChars {
		return s
	}
	cut, n := 0, 0
	for i := range s {
		if n == EchoChars {
			cut = i
			break
		}
		n++
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:cut], len(s))
}

// Line returns the first line of s, at most max bytes of it when max > 0 (cut at the start of a
// UTF-8 sequence, then "…"): an error message in one line (a server's error carries its log's
// tail after the first).
func Line(s string, max int) string {
	s, _, _ = strings.Cut(s, "\n")
	if max <= 0 || len(s) <= max {
		return s
	}
	end := max
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// ReadFile reads the file at path, which must be a regular file (a symbolic link to one is
// followed) of at most limit bytes: a directory, a device (/dev/zero), a pipe or a socket is
// refused before it is read, and so is a larger file; a file that grows past limit while it is
// read is refused too. An error is one line without the path (the caller names the flag and
// the path): "not a regular file (a directory)", "is 52428800 bytes: at most 1 MiB (1048576
// bytes)", or the system's reason ("no such file or directory").
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, Reason(err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("grew past %s while it was read", sizeLimit(limit))
	}
	return data, nil
}

// Open opens the file at path for reading after the checks of ReadFile (a regular file of at
// most limit bytes), for a caller that reads it as a stream; it should read no more than
// limit bytes of it.
func Open(path string, limit int64) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, Reason(err)
	}
	if err := CheckRegular(st, limit); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Reason(err)
	}
	// The file may have been replaced between Stat and Open: check what was opened. (Stat
	// comes first because opening a named pipe would wait for a writer.)
	if st, err = f.Stat(); err == nil {
		err = CheckRegular(st, limit)
	}
	if err != nil {
		f.Close()
		return nil, Reason(err)
	}
	return f, nil
}

// CheckRegular says why st is not a file rumbench reads settings from: not a regular file, or
// larger than limit bytes; nil when it is one.
func CheckRegular(st fs.FileInfo, limit int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", kind(st.Mode()))
	}
	if st.Size() > limit {
		return fmt.Errorf("is %d bytes: at most %s", st.Size(), sizeLimit(limit))
	}
	return nil
}

// kind names what a file that is not regular is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// sizeLimit writes a byte limit as "1 MiB (1048576 bytes)", or "N bytes" below 1 KiB.
func sizeLimit(limit int64) string {
	switch {
	case limit >= 1<<20 && limit%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", limit>>20, limit)
	case limit >= 1<<10 && limit%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", limit>>10, limit)
	}
	return fmt.Sprintf("%d bytes", limit)
}

// Reason returns the reason of a file system error without the path in it (a *fs.PathError's
// or *os.LinkError's Err; other errors as they are), for a message that echoes the path cut.
func Reason(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// MaxComponentBytes and MaxPathBytes are Linux's limits on one file name in a path (NAME_MAX)
// and on a whole path (PATH_MAX).
const (
	MaxComponentBytes = 255
	MaxPathBytes      = 4096
)

// CheckPath says why path cannot name a file rumbench creates: longer than MaxPathBytes, or a
// component longer than MaxComponentBytes (which the system reports only once the directories
// before it exist); nil when it can.
func CheckPath(path string) error {
	if len(path) >= MaxPathBytes {
		return fmt.Errorf("%d bytes long: at most %d", len(path), MaxPathBytes-1)
	}
	for _, c := range strings.Split(path, string(filepath.Separator)) {
		if len(c) > MaxComponentBytes {
			return fmt.Errorf("a name in it is %d bytes long (%s): at most %d", len(c), Short(c), MaxComponentBytes)
		}
	}
	return nil
}

// MaxNameChars is the longest a name may be that becomes part of a file name (see CheckName).
const MaxNameChars = 64

// NameRule says in words what CheckName accepts, for usage messages and help texts.
const NameRule = "1 to 64 characters A-Z a-z 0-9 . _ -, not starting with '.' or '-'"

// CheckName says why s cannot be a name that becomes part of a file or directory name (a run
// id's label, a target's data directory, a --server-config file's name): it must have 1 to
// MaxNameChars characters of A-Z a-z 0-9 '.' '_' '-' and not start with '.' or '-' (no
// hidden file, no flag, no "..", no path separator). nil when it can.
func CheckName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty: want %s", NameRule)
	case len(s) > MaxNameChars:
		return fmt.Errorf("%d bytes long: want %s", len(s), NameRule)
	case s[0] == '.' || s[0] == '-':
		return fmt.Errorf("starts with %q: want %s", s[0], NameRule)
	}
	for i, r := range s {
		if !nameChar(r) {
			return fmt.Errorf("character %q at byte %d: want %s", r, i, NameRule)
		}
	}
	return nil
}

func nameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}

// sqlitePath escapes what a SQLite URI filename reads in a path.
var sqlitePath = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")

// SQLitePath returns path as the file name of a SQLite URI ("file:" + SQLitePath(path) +
// "?options"): a '?' in it would start the options (mode=memory: nothing on disk), a '#' a
// fragment, and %HH would be decoded.
func SQLitePath(path string) string { return sqlitePath.Replace(path) }

// Printable returns s with every character that can drive a terminal written as an escape, for
// output: the C0 controls but tab and line feed (\x1b, \r, \x07 ...), DEL and invalid UTF-8
// bytes as \xNN, the C1 controls (U+0080 to U+009F; U+009B starts a terminal command as ESC [
// does) and Unicode's bidirectional controls (U+202E reverses what follows) as \uNNNN. A value
// read from a file or a store (a target's label in run.json, a release.json) then cannot move the
// cursor, clear the screen, set the window's title or reorder what a table shows. s itself
// when it holds none of them.
func Printable(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		c := s[i]
		clean = c >= 0x20 && c < 0x7f || c == '\t' || c == '\n'
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 && r != '\t' && r != '\n', r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, bidiControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// bidiControl says whether r is one of Unicode's bidirectional formatting characters.
func bidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}
