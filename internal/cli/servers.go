package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/releases"
)

// maxFetch bounds the releases one fetch names.
const maxFetch = 16

// newServersCmd is `rumbench servers`: server releases kept for --server-bin.
func newServersCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "servers",
		Short: "Fetch and list portable server releases to compare with --server-bin",
		Long: `Server releases for runs that compare them (run --engine postgres --server-bin DIR1,DIR2 ...).

  rumbench servers fetch postgres 12 13 16 17   fetch PostgreSQL's portable builds from Maven Central
                                                (checksums verified) and print their directories
  rumbench servers fetch mariadb 10.11 11.4     MariaDB's (run them with --engine mysql)
  rumbench servers list                         what is cached, and where

A version is a major version (16: its newest release), a version (16.4) or an exact one (16.4.0).
The cache is $RUMBENCH_CACHE/servers, else ~/.cache/rumbench/servers; RUMBENCH_MAVEN_REPO names a
Maven mirror. Any other build (a source build, a MariaDB or MySQL tarball) is given to --server-bin
by its directory.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "fetch PRODUCT VERSION...",
		Short: "Fetch releases into the cache and print the directory of each (for --server-bin)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("servers fetch: give a product (%s) and its versions (e.g. servers fetch postgres 16 17)", strings.Join(releases.Products, ", "))
			}
			product := args[0]
			if !slices.Contains(releases.Products, product) {
				return usagef("servers fetch %q: releases of it cannot be fetched (valid: %s); give the directory of any other build to --server-bin", input.Short(product), strings.Join(releases.Products, ", "))
			}
			versions := args[1:]
			if len(versions) == 0 || len(versions) > maxFetch {
				return usagef("servers fetch %s: give 1 to %d versions (e.g. 12 13 16 17)", product, maxFetch)
			}
			for _, v := range versions {
				if !releases.ValidVersion(v) {
					return usagef("servers fetch %s %q: not a version: want %s", product, input.Short(v), releases.VersionRule)
				}
			}
			f, err := releases.NewFetcher()
			if err != nil {
				return usageError{err}
			}
			ctx, cancel := env.Context()
			defer cancel()
			var dirs []string
			for _, v := range versions {
				r, fetched, err := f.Fetch(ctx, product, v)
				if err != nil {
					return fmt.Errorf("servers fetch %s %s: %w", product, input.Short(v), err)
				}
				how := "cached"
				if fetched {
					how = "fetched from " + r.Source
				}
				fmt.Fprintf(env.Stderr, "rumbench: %s %s: %s\n", product, r.Version, how)
				fmt.Fprintln(env.Stdout, r.BinDir)
				dirs = append(dirs, r.BinDir)
			}
			if len(dirs) > 1 {
				fmt.Fprintf(env.Stderr, "rumbench: compare them with: rumbench run --engine %s --server-bin %s\n", releases.Engine(product), strings.Join(dirs, ","))
			}
			return nil
		},
	}, &cobra.Command{
		Use:   "list",
		Short: "List the cached releases and their directories",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := releases.CacheDir()
			if err != nil {
				return err
			}
			rs, err := releases.List(dir)
			if err != nil {
				return err
			}
			if len(rs) == 0 {
				fmt.Fprintf(env.Stdout, "no releases in %s (rumbench servers fetch postgres 16)\n", input.Printable(dir))
				return nil
			}
			for _, r := range rs {
				fmt.Fprintf(env.Stdout, "%s\t%s\t%s\n", r.Product, r.Version, input.Printable(r.BinDir))
			}
			return nil
		},
	})
	return cmd
}
