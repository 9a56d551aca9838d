// Package cli is rumbench's command line: cobra commands over an injected Env, so whole commands
// run in-process in tests. It is the only package that knows about flags.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/engine"
	_ "github.com/rumbench/rumbench/internal/engine/all" // every engine
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/textwrap"
	"github.com/rumbench/rumbench/internal/workload"
	_ "github.com/rumbench/rumbench/internal/workload/all"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1   // the run failed (engine error, full disk, failed invariant)
	ExitUsage       = 2   // bad input: unknown name, malformed flag value, refused data dir
	ExitInterrupted = 130 // cancelled by a signal; results so far are written
)

// Env is everything a command takes from the process.
type Env struct {
	Stdout, Stderr io.Writer
	// Stdin is the standard input (an engine worker's assignment arrives on it).
	Stdin  io.Reader
	Args   []string // without the program name
	Getenv func(string) string
	Now    func() time.Time
	// Context returns the run's context, cancelled by SIGINT/SIGTERM in the real binary.
	Context func() (context.Context, context.CancelFunc)
	// StderrTTY says whether stderr is a terminal (live progress line instead of interval lines).
	StderrTTY bool
	// OnRunDir, when set, is called with the run directory of a run once it is written (a
	// recipe collects its parts' runs with it).
	OnRunDir func(dir string)
}

// OSEnv returns the Env of the running process.
func OSEnv() Env {
	return Env{
		Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin, Args: os.Args[1:], Getenv: os.Getenv, Now: time.Now,
		Context:   signalContext,
		StderrTTY: isTerminal(os.Stderr),
	}
}

// repeatGrace is how long after the first SIGINT or SIGTERM further ones are taken as copies
// of it: timeout(1) signals its command and then its own process group, which holds the
// command, so the command gets the signal twice, microseconds apart.
const repeatGrace = time.Second

// signalContext returns a context cancelled by the first SIGINT or SIGTERM, which starts the
// run's clean stop (engine workers and servers stopped, cgroups and data removed, results
// written). Signals in the repeatGrace after it are the same interrupt and are ignored; after
// that, the default handling is restored: a second Ctrl-C kills at once. (Restoring it at the
// first signal let the copy that timeout(1) sends kill rumbench in the middle of its cleanup.)
func signalContext() (context.Context, context.CancelFunc) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer signal.Stop(sigs)
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done():
			return
		}
		t := time.NewTimer(repeatGrace)
		defer t.Stop()
		for {
			select {
			case <-sigs: // a copy of the first: ignored
			case <-t.C:
				return
			}
		}
	}()
	return ctx, cancel
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// usageError marks errors in the user's input (exit code 2).
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errInterrupted reports a run stopped by a signal after its results were written.
var errInterrupted = errors.New("interrupted")

// interruptedBefore is an interrupt that came before the run started (while its input was
// checked): nothing was run or written. errors.Is finds errInterrupted (exit code 130).
type interruptedBefore struct{ while string }

func (e interruptedBefore) Error() string {
	return "interrupted " + e.while + "; nothing was run"
}

func (e interruptedBefore) Is(target error) bool { return target == errInterrupted }

// Main runs the command line and returns the exit code.
func Main(env Env) int {
	rec, scale, rest, err := recipeArgs(env.Args)
	if err != nil {
		fmt.Fprintln(env.Stderr, "rumbench: "+input.Printable(usageLine(err.Error())))
		return ExitUsage
	}
	if rec != nil {
		return runRecipe(env, rec, scale, rest)
	}
	args, err := expandRunFile(env.Args)
	if err == nil {
		// The command line as given (a run file expanded) is the run's (the manifest's, an
		// engine worker's); cobra takes it with its workload as the subcommand.
		env.Args = args
		args, err = workloadFirst(args)
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "rumbench: "+input.Printable(usageLine(err.Error())))
		return ExitUsage
	}
	root := newRoot(&env)
	root.SetArgs(args)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	return exitWith(env, root.Execute())
}

// exitWith says err on stderr and returns its exit code: ExitOK for nil, ExitInterrupted for
// an interrupt, ExitUsage (one line) for bad input, ExitFailure otherwise. The message is
// printed escaped (input.Printable): it may quote a file's or a server's text.
func exitWith(env Env, err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errInterrupted):
		var before interruptedBefore
		if errors.As(err, &before) {
			fmt.Fprintln(env.Stderr, "rumbench: "+input.Printable(usageLine(err.Error())))
		} else {
			fmt.Fprintln(env.Stderr, "rumbench: interrupted; results measured so far are written")
		}
		return ExitInterrupted
	case isUsage(err):
		fmt.Fprintln(env.Stderr, "rumbench: "+input.Printable(usageLine(err.Error())))
		return ExitUsage
	}
	// A run failure may carry more lines: a server's log tail.
	fmt.Fprintln(env.Stderr, "rumbench: "+input.Printable(strings.TrimRight(err.Error(), "\n")))
	return ExitFailure
}

// isUsage says whether err is the user's input's (exit code 2).
func isUsage(err error) bool {
	var ue usageError
	var be bench.UsageError
	return errors.As(err, &ue) || errors.As(err, &be) || isCobraUsage(err)
}

// quoted matches a double-quoted value in a message, as the flag parser and %q write it.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// maxUsageLine caps a usage error's line, in bytes, whatever it echoes.
const maxUsageLine = 1000

// usageLine is the line a usage error prints: its first line, each quoted value in it cut as
// input.Short cuts (the flag parser echoes a value whole: invalid argument "<300 digits>"),
// and the whole at most maxUsageLine bytes.
func usageLine(s string) string {
	s = quoted.ReplaceAllStringFunc(input.Line(s, 0), func(q string) string {
		if len(q) <= input.EchoChars+2 || (strings.Contains(q, "…(") && strings.HasSuffix(q, ` bytes)"`)) {
			return q // short, or cut already
		}
		return `"` + input.Short(q[1:len(q)-1]) + `"`
	})
	return input.Line(s, maxUsageLine)
}

// isCobraUsage recognizes cobra's own argument errors (unknown command or flag).
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires ", "flag needs an argument"} {
		if strings.HasPrefix(msg, p) || strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// rootLong is the root command's description; its workloads and engines are the registries'
// (an engine this binary was built without is left out), the default run's engines run's own.
func rootLong() string {
	var embedded, servers []string
	for _, n := range engine.Names() {
		switch s, _ := engine.Lookup(n); {
		case s.Unavailable != "":
		case s.Server:
			servers = append(servers, n)
		default:
			embedded = append(embedded, n)
		}
	}
	text := fmt.Sprintf(`rumbench runs the workloads database performance engineers publish (%s) against embedded
engines (%s) and database servers (%s) that rumbench starts privately or that you point it to
with --dsn, and reports throughput, response time and the read, write and space costs behind them,
normalized per operation from OS counters. "rumbench engines" and "rumbench workloads" say what each is;
"rumbench run WORKLOAD" runs a workload.

Run "rumbench run" with no flags for a quick LSM-vs-B-tree comparison: the insert benchmark on %s.`,
		strings.Join(workload.Names(), ", "), strings.Join(embedded, ", "), strings.Join(servers, ", "),
		strings.ReplaceAll(defaultEngines(), ",", ", "))
	return textwrap.Fill(text, 100)
}

// flagUsages matches the flag lists in cobra's usage template (.LocalFlags.FlagUsages).
var flagUsages = regexp.MustCompile(`\.(\w+)\.FlagUsages\b`)

func newRoot(env *Env) *cobra.Command {
	root := &cobra.Command{
		Use:           "rumbench",
		Short:         "rumbench measures what a database engine costs per operation",
		Long:          rootLong(),
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	// Flag help wrapped to textwrap.Width, in every command (they inherit the root's template).
	root.SetUsageTemplate(flagUsages.ReplaceAllString(root.UsageTemplate(), fmt.Sprintf("(.$1.FlagUsagesWrapped %d)", textwrap.Width)))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%v (see %s --help)", err, c.CommandPath())}
	})
	run, prepare := newRunCmd(env), newPrepareCmd(env)
	for _, c := range []*cobra.Command{run, prepare} {
		c.SetUsageTemplate(workloadsUsage(root.UsageTemplate()))
	}
	root.AddCommand(run, prepare, newEnginesCmd(env), newWorkloadsCmd(env), newVersionCmd(env), newRunsCmd(env), newMetricsCmd(env), newRecipesCmd(env), newServersCmd(env), newServeCmd(env))
	root.AddCommand(newReportCmd(env), newCompareCmd(env), newWorkerCmd(env), newMergeCmd(env), newKubeCmd(env), newHostNoiseCmd(env))
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}

// workloadsUsage is the usage template of run and prepare, made from the root's (tmpl): their
// subcommands are the workloads.
func workloadsUsage(tmpl string) string {
	return strings.NewReplacer(
		"{{if .HasAvailableSubCommands}}\n  {{.CommandPath}} [command]{{end}}", "", // Use says [WORKLOAD]
		"Available Commands:", "Workloads (--workload WORKLOAD is an alias of the word):",
		`Use "{{.CommandPath}} [command] --help" for more information about a command.`,
		`Use "{{.CommandPath}} WORKLOAD --help" for a workload's own flags and profiles.`,
	).Replace(tmpl)
}
