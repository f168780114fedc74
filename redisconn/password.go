package redisconn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// MaxPasswordFile is the largest password file ReadPasswordFile reads.
const MaxPasswordFile = 4096

// ReadPasswordFile reads a Redis password from a file that holds only it
// (keeping it out of ps and of URLs). The file's trailing newline is not
// part of the password. An empty file (or one holding only a line break)
// means "no password": it is what the systemd unit's default credential
// holds when the operator's Redis has no requirepass. A missing file, a
// file larger than MaxPasswordFile or one that is not a regular file is
// an error naming the file ("FILE: reason").
func ReadPasswordFile(file string) (string, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return "", pathError(file, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxPasswordFile {
		return "", fmt.Errorf("%s: want a regular file of at most %d bytes holding the password", file, MaxPasswordFile)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", pathError(file, err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// pathError is err about file as "FILE: reason" (an *fs.PathError's
// operation dropped).
func pathError(file string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", file, err)
}
