// Command rumbench measures what a database engine costs per operation. See README.md.
package main

import (
	"os"

	"github.com/rumbench/rumbench/internal/cli"
)

func main() { os.Exit(cli.Main(cli.OSEnv())) }
