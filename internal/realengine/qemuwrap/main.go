// Command qemuwrap is the engine kit's buildkit-qemu-aarch64: Debian's static qemu for
// aarch64, carried as a payload after this program, with the two things the emulators of
// Dagger's released engine image do before emulating and Debian's qemu does not. The engine
// runs it as `emulator PROGRAM ARGS…` inside the container (getEmulator in
// core/container_emulator.go), so it finds PROGRAM on the container's PATH when the name has
// no slash, and starts a script's interpreter for a "#!" script. Then it runs the payload
// from memory (memfd), since the container holds no copy of it. Like Debian's qemu, it
// emulates only that first process: programs it executes are not emulated.
//
// Built by scripts/engine: `go build` of this package, then the payload and its length
// (8 bytes, little-endian) appended (see Payload).
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "buildkit-qemu-aarch64:", err)
		os.Exit(126)
	}
}

func run() error {
	if len(os.Args) < 2 {
		return errors.New("no program to emulate")
	}
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		return err
	}
	qemu, err := Payload(self)
	if err != nil {
		return err
	}
	prog := Resolve(os.Args[1], os.Getenv("PATH"), isExecutable)
	if !strings.Contains(prog, "/") {
		fmt.Fprintf(os.Stderr, "buildkit-qemu-aarch64: %s: not found on PATH\n", prog)
		os.Exit(127)
	}
	head := make([]byte, 256)
	if f, err := os.Open(prog); err == nil {
		n, _ := f.Read(head)
		head = head[:n]
		f.Close()
	}
	argv := Argv(head, prog, os.Args[2:])
	fd, err := unix.MemfdCreate("qemu-aarch64", 0)
	if err != nil {
		return fmt.Errorf("memfd_create: %w", err)
	}
	if _, err := unix.Write(fd, qemu); err != nil {
		return err
	}
	return unix.Exec(fmt.Sprintf("/proc/self/fd/%d", fd), append([]string{"qemu-aarch64"}, argv...), os.Environ())
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// Payload is what follows the program in its own file: the file ends with the payload and
// then its length, 8 bytes little-endian.
func Payload(file []byte) ([]byte, error) {
	if len(file) < 8 {
		return nil, errors.New("no emulator payload")
	}
	n := binary.LittleEndian.Uint64(file[len(file)-8:])
	if n == 0 || n > uint64(len(file)-8) {
		return nil, fmt.Errorf("no emulator payload (length %d in a file of %d bytes)", n, len(file))
	}
	return file[uint64(len(file)-8)-n : len(file)-8], nil
}

// Resolve finds a program named without a slash on PATH, as execvp does; a name with a
// slash, or one PATH lacks, is returned as given (qemu then reports it).
func Resolve(name, path string, executable func(string) bool) string {
	if name == "" || strings.Contains(name, "/") {
		return name
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if p := filepath.Join(dir, name); executable(p) {
			return p
		}
	}
	return name
}

// Argv is what qemu runs for prog: prog and args, or for a script (head starts with "#!")
// its interpreter, the interpreter's one optional argument, the script and args, as the
// kernel does.
func Argv(head []byte, prog string, args []string) []string {
	line, ok := strings.CutPrefix(string(head), "#!")
	if !ok {
		return append([]string{prog}, args...)
	}
	line, _, _ = strings.Cut(line, "\n")
	interp, arg, _ := strings.Cut(strings.TrimSpace(strings.ReplaceAll(line, "\t", " ")), " ")
	if interp == "" {
		return append([]string{prog}, args...)
	}
	out := []string{interp}
	if arg = strings.TrimSpace(arg); arg != "" {
		out = append(out, arg)
	}
	return append(append(out, prog), args...)
}
