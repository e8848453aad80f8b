//go:build !unix

package input

import "os"

// openFlags opens a file for reading; the Stat before the open refuses
// named pipes.
const openFlags = os.O_RDONLY
