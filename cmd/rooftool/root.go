package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rooftool/rooftool/ingest"
	"github.com/rooftool/rooftool/ingest/ncu"
	"github.com/rooftool/rooftool/ingest/nsys"
	"github.com/rooftool/rooftool/internal/tableout"
	"github.com/rooftool/rooftool/pipeline"
)

// Exit codes, the same for every command; the package doc (main.go) says
// which failures give which.
const (
	exitOK      = 0
	exitFailure = 1
	exitBadArgs = 2
)

// version is set with -ldflags "-X main.version=...".
var version = "dev"

// usageError marks errors in how the command was called: rooftool's own,
// cobra's flag errors (SetFlagErrorFunc), argument counts (usageArgs) and
// unknown commands (run).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// IO carries the command's streams so that run functions never touch os.Stdout.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
	IsTTY    bool // Out is a terminal
	ErrIsTTY bool // Err is a terminal: progress of long work is shown there
	// Width is the columns text tables are fitted to (outWidth, or
	// --width); 0 writes them whole.
	Width int
}

func stdIO() *IO {
	out := isTerminal(os.Stdout)
	return &IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, IsTTY: out, ErrIsTTY: isTerminal(os.Stderr),
		Width: outWidth(os.Stdout, out, os.Getenv("COLUMNS"))}
}

// outWidth is the width of the terminal f is, where it is one and its size
// can be read; else $COLUMNS where that is a positive number; else 0 (no
// limit: a pipe or a file gets every table whole).
func outWidth(f *os.File, tty bool, columns string) int {
	if tty {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	if n, err := strconv.Atoi(columns); err == nil && n > 0 {
		return n
	}
	return 0
}

// writeData writes o in format to io.Out through tableout, the text table
// fitted to io.Width.
func writeData(io *IO, format string, o tableout.Output) error {
	o.Width = io.Width
	return tableout.Write(io.Out, format, o)
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// newRootCmd builds the command tree.
func newRootCmd(io *IO) *cobra.Command {
	root := &cobra.Command{
		Use:           "rooftool",
		Short:         "Check kernel-fusion claims with real measurements",
		Long:          "rooftool profiles fused and unfused kernel variants under Nsight Compute and Nsight Systems,\ningests the exports into Arrow tables, draws roofline plots and writes go/no-go reports.",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	width := root.PersistentFlags().Int("width", 0, "fit text tables to N columns, names shortened in the middle (default: the terminal's width, else $COLUMNS; 0: whole); CSV and JSON stay whole")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if !c.Flags().Changed("width") {
			return nil
		}
		if *width < 0 {
			return usageErrorf("%s: --width %d: want 0 (no limit) or more columns", c.Name(), *width)
		}
		io.Width = *width
		return nil
	}
	for _, f := range commands {
		root.AddCommand(f(io))
	}
	usageArgs(root)
	return root
}

// usageArgs makes the argument check of c and of every command under it
// (cobra.ExactArgs and the like, which return plain errors) a usage error.
func usageArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// commands lists every subcommand constructor; each lives in its own file.
var commands = []func(*IO) *cobra.Command{
	newIngestCmd,
	newStatsCmd,
	newProfileCmd,
	newPlanCmd,
	newMergeCmd,
	newSlurmCmd,
	newDoctorCmd,
	newGPUsCmd,
	newCeilingsCmd,
	newRooflineCmd,
	newReportCmd,
	newDiffCmd,
	newNewCmd,
	newSuggestCmd,
	newProjectCmd,
	newCompletionCmd,
	newVersionCmd,
}

// Main runs rooftool with os.Args and returns the exit code.
func Main() int {
	guardMemory(os.Stderr)
	return run(context.Background(), os.Args[1:], stdIO())
}

func run(ctx context.Context, args []string, io *IO) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	root := newRootCmd(io)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	if cmd == root {
		// The root command runs nothing itself: its errors are in how
		// rooftool was called (an unknown command).
		err = usageError{err}
	}
	fmt.Fprintln(io.Err, "rooftool:", errorMessage(root, cmd, err))
	return exitCode(err)
}

// errorMessage is err as the command that ran reports it: named in front
// (unless the message names it already), and with the advice to give a
// profiler's path only where the command has the flag for it.
func errorMessage(root, cmd *cobra.Command, err error) string {
	msg := err.Error()
	if cmd == nil || cmd == root {
		return msg
	}
	name := cmd.Name()
	if !strings.HasPrefix(msg, name+":") && !strings.HasPrefix(msg, name+" ") {
		msg = name + ": " + msg
	}
	for _, t := range []struct {
		err  error
		flag string
	}{{nsys.ErrNotFound, "nsys"}, {ncu.ErrNotFound, "ncu"}} {
		if errors.Is(err, t.err) && cmd.Flags().Lookup(t.flag) != nil {
			msg += fmt.Sprintf("; or give its path with --%s", t.flag)
		}
	}
	return msg
}

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if missingTool(err) {
		return exitFailure // before InputError: ingest wraps these in one
	}
	var ie *ingest.InputError
	var ue usageError
	var re *pipeline.RunInputError
	switch {
	case errors.As(err, &ie), errors.As(err, &ue), errors.As(err, &re):
		return exitBadArgs
	}
	return exitFailure
}

// missingTool reports whether err says that a tool rooftool looks for
// (nsys, ncu) is not installed where it looks. A binary named by a flag
// (--nsys, --ncu, --python) that does not exist is bad input instead.
func missingTool(err error) bool {
	return errors.Is(err, nsys.ErrNotFound) || errors.Is(err, ncu.ErrNotFound)
}
