// Package readcap reads a file whole with a size limit, so that /dev/zero,
// a pipe that never ends or a mistaken multi-gigabyte binary gives an
// error naming the file instead of exhausting memory.
//
// Invariant: at most limit+1 bytes are ever read, whatever the file is;
// a directory is refused by name; a regular file's size is checked before
// reading, a pipe or device is read up to min(limit, MaxStream) bytes.
package readcap
