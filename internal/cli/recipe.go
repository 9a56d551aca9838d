package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/recipe"
	"github.com/rumbench/rumbench/internal/report"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/textwrap"
)

// newRecipesCmd is rumbench recipes: the shipped recipes, and one recipe's file.
func newRecipesCmd(env *Env) *cobra.Command {
	var runDirs []string
	var scale string
	cmd := &cobra.Command{
		Use:   "recipes [NAME]",
		Short: "List the recipes (published reports reproduced); print one recipe's file",
		Long: `A recipe reproduces a published benchmark report: its setup as one or more runs, its tables
in the report's shape with the published figures beside the measured ones, and its findings as
checks, each printed as reproduced or not. "rumbench run --recipe NAME" runs one at its quick
scale (minutes), "--scale full" at the report's sizes. "rumbench recipes NAME" prints the
recipe's file: save it, change it and run it with "rumbench run --recipe FILE" (or -f FILE).
docs/recipes.md has each recipe's report and this machine's output.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(runDirs) > 0 {
				if len(args) == 0 {
					return usagef("--runs needs the recipe: rumbench recipes NAME|FILE --runs DIR,...")
				}
				return evalRecipe(env, args[0], scale, runDirs)
			}
			if len(args) == 1 {
				src, ok := recipe.Source(args[0])
				if !ok {
					_, err := recipe.Lookup(args[0])
					return usageError{err}
				}
				_, err := env.Stdout.Write(src)
				return err
			}
			all, err := recipe.List()
			if err != nil {
				return err
			}
			width := len("RECIPE")
			for _, r := range all {
				width = max(width, len(r.Name))
			}
			fmt.Fprintf(env.Stdout, "%-*s  PARTS  REPRODUCES\n", width, "RECIPE")
			for _, r := range all {
				fmt.Fprintln(env.Stdout, textwrap.Hang(fmt.Sprintf("%-*s  %-5d  ", width, r.Name, len(r.Parts)), r.Title, textwrap.Width))
			}
			fmt.Fprintln(env.Stdout, "rumbench recipes NAME prints one (its report, scales, parts, tables, findings);\nrumbench run --recipe NAME runs it.")
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&runDirs, "runs", nil, "evaluate the recipe over these finished runs (one run directory per part, in the recipe's order) instead of printing it")
	cmd.Flags().StringVar(&scale, "scale", recipe.Quick, "with --runs: the scale the runs were made at (quick or full)")
	return cmd
}

// evalRecipe prints recipe name's tables and findings over finished runs, one per part.
func evalRecipe(env *Env, name, scale string, dirs []string) error {
	rec, err := loadRecipe(name)
	if err != nil {
		return err
	}
	if !slices.Contains(recipe.Scales, scale) {
		return usagef("--scale %q: want %s", input.Short(scale), strings.Join(recipe.Scales, " or "))
	}
	if len(dirs) != len(rec.Parts) {
		return usagef("--runs: %d run directories for the %d parts of recipe %s", len(dirs), len(rec.Parts), rec.Name)
	}
	var runs []recipe.PartRun
	for i, d := range dirs {
		run, err := results.Load(d)
		if err != nil {
			return usageError{err}
		}
		runs = append(runs, recipe.PartRun{Part: rec.Parts[i].Name, Run: run})
	}
	doc, verdicts := rec.Evaluate(runs, scale)
	if err := report.Render(env.Stdout, "text", doc); err != nil {
		return err
	}
	for _, v := range verdicts {
		fmt.Fprintln(env.Stdout, input.Printable(v.Line()))
	}
	return nil
}

// recipeArgs finds a recipe in a run command line: --recipe NAME|FILE, or -f FILE of a recipe
// file, and --scale. It returns the recipe, the scale and the other arguments; a nil recipe
// when the command line runs none.
func recipeArgs(args []string) (*recipe.Recipe, string, []string, error) {
	if len(args) == 0 || args[0] != "run" {
		return nil, "", args, nil
	}
	var rec *recipe.Recipe
	scale := ""
	rest, err := scanFlags(args, []string{"--recipe", "--scale", "-f", "--file"}, "", func(name, val string) (bool, error) {
		switch name {
		case "--scale":
			if !slices.Contains(recipe.Scales, val) {
				return false, usagef("--scale %q: want %s", input.Short(val), strings.Join(recipe.Scales, " or "))
			}
			scale = val
			return false, nil
		case "--recipe":
			if rec != nil {
				return false, usagef("--recipe %s: one recipe per run", input.Short(val))
			}
			r, err := loadRecipe(val)
			rec = r
			return false, err
		}
		// -f FILE: a recipe file, or a run file left to expandRunFile.
		data, err := input.ReadFile(val, input.MaxFileBytes)
		if err != nil || !recipe.IsRecipe(data) {
			return true, nil
		}
		if rec != nil {
			return false, usagef("%s %s: one recipe per run", name, input.Short(val))
		}
		if rec, err = recipe.Parse(data); err != nil {
			return false, usagef("%s %s: %v", name, input.Short(val), err)
		}
		return false, nil
	})
	if err != nil {
		return nil, "", nil, err
	}
	if rec == nil {
		if scale != "" {
			return nil, "", nil, usagef("--scale is the scale of a recipe: give --recipe NAME (rumbench recipes lists them)")
		}
		return nil, "", args, nil
	}
	if scale == "" {
		scale = recipe.Quick
	}
	return rec, scale, rest[1:], nil
}

// loadRecipe is a shipped recipe by name, or a recipe file (a path holding a / or ending .yaml).
func loadRecipe(v string) (*recipe.Recipe, error) {
	if strings.ContainsRune(v, '/') || strings.HasSuffix(v, ".yaml") || strings.HasSuffix(v, ".yml") {
		r, err := recipe.Load(v)
		if err != nil {
			return nil, usagef("--recipe %s: %v", input.Short(v), err)
		}
		return r, nil
	}
	r, err := recipe.Lookup(v)
	if err != nil {
		return nil, usagef("--recipe: %v", err)
	}
	return r, nil
}

// flagValue is the value of flag name in a run's flags (the last one given), or def.
func flagValue(flags []string, name, def string) string {
	v := def
	scanFlags(append([]string{"run"}, flags...), []string{name}, "", func(_, val string) (bool, error) {
		v = val
		return true, nil
	})
	return v
}

// recipeHelp says what a recipe runs and how to run it.
func recipeHelp(w io.Writer, rec *recipe.Recipe) {
	fmt.Fprintf(w, "rumbench run --recipe %s [--scale quick|full] [run flags, over each part's]\n\n%s\nreproduces: %s\n", rec.Name, rec.Title, rec.Report)
	for _, s := range recipe.Scales {
		fmt.Fprintf(w, "scale %s: %s\n", s, rec.Scales[s])
	}
	for _, p := range rec.Parts {
		fmt.Fprintf(w, "part %s\n", p.Name)
	}
	fmt.Fprintf(w, "%d tables, %d findings; rumbench recipes %s prints the whole recipe\n", len(rec.Tables), len(rec.Findings), rec.Name)
}

// checkRunArgs checks a run command line (a run file expanded) as run does before it starts
// anything: its flags parsed by its workload's run command (parseRun), the
// configuration built and validated (checkStart). Nothing runs and nothing is written.
func checkRunArgs(env Env, args []string) error {
	args, err := expandRunFile(args)
	if err != nil {
		return err
	}
	env.Args = args
	cmd, f, err := parseRun(&env, args)
	if err != nil {
		return err
	}
	ctx, cancel := env.Context()
	defer cancel()
	_, err = checkStart(ctx, cmd, &env, f)
	return err
}

// writeRecipeInput writes the recipe's files and each part's run file at scale (files/<part>.yaml)
// into dir.
func writeRecipeInput(dir string, rec *recipe.Recipe, scale string) error {
	for name, text := range rec.Files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	for _, p := range rec.Parts {
		data, err := rec.RunFile(p, scale)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, p.Name+".yaml"), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// checkRecipe checks every part of rec at scale, with rest's flags over it, as run would before
// it starts (checkRunArgs), in a temporary directory of its own (removed after), so that bad input
// is one line before anything runs and before anything is written under --out.
func checkRecipe(env Env, rec *recipe.Recipe, scale string, rest []string) error {
	tmp, err := os.MkdirTemp("", "rumbench-recipe-")
	if err != nil {
		return fmt.Errorf("recipe %s: %v", rec.Name, err)
	}
	defer os.RemoveAll(tmp) // made here, by this run
	if err := writeRecipeInput(tmp, rec, scale); err != nil {
		return fmt.Errorf("recipe %s: %v", rec.Name, err)
	}
	for _, p := range rec.Parts {
		err := checkRunArgs(env, append([]string{"run", "-f", filepath.Join(tmp, p.Name+".yaml")}, rest...))
		switch {
		case err == nil:
		case isUsage(err):
			return usagef("recipe %s: part %s: %s", rec.Name, p.Name, usageLine(err.Error()))
		default:
			return fmt.Errorf("recipe %s: part %s: %w", rec.Name, p.Name, err)
		}
	}
	return nil
}

// runRecipe runs each part of rec at scale as a run (its run file written into the recipe's
// directory under --out, rest's flags over it), then prints the recipe's tables and findings
// and writes them beside the run files. Every part is checked first (checkRecipe): bad input
// is one line and exit 2, with nothing run and nothing written. The recipe's directory is
// <out>/<time>-recipe-<name>, or with -2, -3 ... when that exists (results.NewDir): each recipe
// run has its own. A part that fails or is interrupted ends the recipe: the tables and
// findings are made from what ran, and the part's exit code is returned.
func runRecipe(env Env, rec *recipe.Recipe, scale string, rest []string) int {
	if slices.Contains(rest, "--help") || slices.Contains(rest, "-h") {
		recipeHelp(env.Stdout, rec)
		return ExitOK
	}
	if err := checkRecipe(env, rec, scale, rest); err != nil {
		return exitWith(env, err)
	}
	out := flagValue(rest, "--out", "results")
	dir, _, err := results.NewDir(out, env.Now().UTC().Format("20060102T150405Z")+"-recipe-"+rec.Name, 0o755)
	files := filepath.Join(dir, "files")
	if err == nil {
		err = os.Mkdir(files, 0o755)
	}
	if err == nil {
		err = writeRecipeInput(files, rec, scale)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "rumbench: recipe %s: %v\n", rec.Name, err)
		return ExitFailure
	}
	quiet := slices.Contains(rest, "--quiet")
	if !quiet {
		fmt.Fprintf(env.Stderr, "rumbench: recipe %s (%s), scale %s: %d part(s); %s\n", rec.Name, rec.Title, scale, len(rec.Parts), rec.Scales[scale])
	}
	var runs []recipe.PartRun
	code := ExitOK
	for i, p := range rec.Parts {
		if !quiet {
			fmt.Fprintf(env.Stderr, "rumbench: recipe %s: part %d/%d: %s (rumbench run -f %s)\n", rec.Name, i+1, len(rec.Parts), p.Name, filepath.Join(files, p.Name+".yaml"))
		}
		sub := env
		var runDir string
		sub.OnRunDir = func(d string) { runDir = d }
		sub.Args = append([]string{"run", "-f", filepath.Join(files, p.Name+".yaml")}, rest...)
		code = Main(sub)
		if runDir != "" {
			if run, err := results.Load(runDir); err == nil {
				runs = append(runs, recipe.PartRun{Part: p.Name, Run: run})
			} else {
				fmt.Fprintf(env.Stderr, "rumbench: recipe %s: part %s: %v\n", rec.Name, p.Name, err)
			}
		}
		if code != ExitOK {
			fmt.Fprintf(env.Stderr, "rumbench: recipe %s: part %s ended with exit code %d: the tables and findings below are of what ran\n", rec.Name, p.Name, code)
			break
		}
	}
	doc, verdicts := rec.Evaluate(runs, scale)
	var text bytes.Buffer
	if err := report.Render(&text, "text", doc); err != nil {
		fmt.Fprintf(env.Stderr, "rumbench: recipe %s: %v\n", rec.Name, err)
		return ExitFailure
	}
	for _, v := range verdicts {
		fmt.Fprintln(&text, input.Printable(v.Line()))
	}
	fmt.Fprintln(env.Stdout)
	env.Stdout.Write(text.Bytes())
	if err := writeRecipeFiles(dir, rec, doc, verdicts, text.Bytes()); err != nil {
		fmt.Fprintf(env.Stderr, "rumbench: recipe %s: %v\n", rec.Name, err)
		if code == ExitOK {
			code = ExitFailure
		}
	}
	fmt.Fprintf(env.Stdout, "recipe: %s\n", dir)
	return code
}

// writeRecipeFiles writes the recipe's output into its directory: recipe.txt (as printed),
// recipe.md, findings.json.
func writeRecipeFiles(dir string, rec *recipe.Recipe, doc *report.Document, verdicts []recipe.Verdict, text []byte) error {
	if err := os.WriteFile(filepath.Join(dir, "recipe.txt"), text, 0o644); err != nil {
		return err
	}
	var md bytes.Buffer
	if len(verdicts) > 0 {
		doc.Sections[0].Tables = append(doc.Sections[0].Tables, recipe.FindingsTable(verdicts))
	}
	if err := report.Render(&md, "md", doc); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "recipe.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "findings.json"))
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	err = enc.Encode(struct {
		Recipe   string           `json:"recipe"`
		Findings []recipe.Verdict `json:"findings"`
	}{rec.Name, verdicts})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
