package server

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	_ "github.com/go-sql-driver/mysql" // database/sql driver "mysql": the setup connection
)

// MariaDB instance: Dir/my.cnf (the only option file read: --defaults-file) holds the paths,
// the plugins, rumbench's settings and an !include of the user's file; mariadb-install-db
// reads it too (so creation-time options such as innodb_page_size apply); mariadbd runs
// directly with an init file (Dir/init.sql, 0600) that creates the benchmark's user and
// database before it accepts connections; readiness is its "ready for connections" log line;
// rumbench then reads the version and the active plugins over its own TCP connection as that
// user. The administrator is root over the unix socket only (unix_socket authentication: no
// other OS user can log in as it); no client program is needed.

func (s *Server) myInit(ctx context.Context) error {
	if s.cfg.ConfigFile != "" {
		if err := s.writeFile(s.userConfigPath(), withGroupHeader(s.userConf)); err != nil {
			return err
		}
	}
	if err := s.writeMyCnf(); err != nil {
		return err
	}
	if s.cfg.galera != nil && s.cfg.galera.joiner {
		return s.galeraJoinerInit() // its data comes from the state transfer
	}
	if s.bins.selfInit {
		return s.mysqlInit(ctx)
	}
	args := []string{"--defaults-file=" + s.configPath(), "--datadir=" + s.dataDir,
		"--auth-root-authentication-method=socket", "--auth-root-socket-user=" + s.osUser(), "--skip-test-db"}
	if s.acct != nil {
		args = append(args, "--user="+s.acct.name)
	}
	if s.cfg.BinDir != "" {
		args = append(args, "--basedir="+filepath.Dir(s.bins.baseDir))
	}
	// Its stdout is a long generic text (also on failure); keep it apart from the log.
	out, err := os.Create(filepath.Join(s.dir, "install-db.out"))
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	defer out.Close()
	off := s.logSize()
	if err := s.runTool(ctx, false, out, s.bins.initdb, args...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.startError("mariadb-install-db", "mariadb-install-db failed", s.configHint(), off, err)
	}
	return nil
}

// mysqlInit creates the data directory of a MySQL build with mysqld --initialize-insecure: root
// at localhost without a password, which the init file then gives the instance's password (see
// mySetupSQL), so no other OS user can log in as it over the socket.
func (s *Server) mysqlInit(ctx context.Context) error {
	args := []string{"--defaults-file=" + s.configPath(), "--initialize-insecure", "--datadir=" + s.dataDir}
	if s.acct != nil {
		args = append(args, "--user="+s.acct.name)
	}
	if s.cfg.BinDir != "" {
		args = append(args, "--basedir="+filepath.Dir(s.bins.baseDir))
	}
	off := s.logSize()
	if err := s.runTool(ctx, false, nil, s.bins.server, args...); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.startError("mysqld --initialize-insecure", "mysqld --initialize-insecure failed", s.configHint(), off, err)
	}
	return nil
}

// osUser is the name of the OS user rumbench runs as: the MariaDB administrator that
// unix_socket authentication admits.
func (s *Server) osUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}

// withGroupHeader prefixes a my.cnf fragment with [mysqld] when an option comes before any
// group header (MariaDB would otherwise ignore the whole file with only a warning).
func withGroupHeader(data []byte) []byte {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' || line[0] == '!' {
			continue
		}
		if line[0] == '[' {
			return data
		}
		break
	}
	return append([]byte("[mysqld]\n"), data...)
}

// cnfPath says why path cannot be a value in a my.cnf, nil when it can: an option file reads
// '#' as a comment, a backslash as an escape, a quote as quoting and a line end as the value's
// end.
func cnfPath(path string) error {
	if i := strings.IndexFunc(path, func(r rune) bool { return r < ' ' || r == 0x7f || strings.ContainsRune("#\\\"'", r) }); i >= 0 {
		return fmt.Errorf("%q holds %q, which a MariaDB option file cannot hold (valid: a directory without # \\ \" ' or control characters)", path, path[i])
	}
	return nil
}

// writeMyCnf writes Dir/my.cnf for the current port (none before the first launch).
func (s *Server) writeMyCnf() error {
	for _, p := range []string{s.dataDir, s.dir, s.logPath} {
		if err := cnfPath(p); err != nil {
			return err
		}
	}
	var b strings.Builder
	b.WriteString("# Written by rumbench for a private MariaDB instance (mariadbd --defaults-file=this file).\n[mysqld]\n")
	fmt.Fprintf(&b, "datadir=%s\nsocket=%s\n", s.dataDir, s.socketPath())
	if s.port > 0 {
		fmt.Fprintf(&b, "port=%d\n", s.port)
	}
	fmt.Fprintf(&b, "bind-address=127.0.0.1\npid-file=%s\nlog-error=%s\nskip-name-resolve\n",
		filepath.Join(s.dir, "mysqld.pid"), s.logPath)
	// A private tmpdir: instances bootstrapped at the same time collide on /tmp's #sql files.
	fmt.Fprintf(&b, "tmpdir=%s\n", s.dir)
	if s.acct != nil {
		fmt.Fprintf(&b, "user=%s\n", s.acct.name)
	}
	if s.bins.selfInit {
		// MySQL 8 listens for the X protocol on port 33060 unless told not to: private
		// instances would collide on it (loose-: 5.7 has no such plugin).
		b.WriteString("loose-mysqlx=OFF\n")
	}
	for _, p := range s.cfg.Plugins {
		fmt.Fprintf(&b, "plugin-load-add=%s\n", p)
	}
	if len(s.cfg.Settings) > 0 {
		b.WriteString("# rumbench's settings\n")
	}
	for _, st := range s.cfg.Settings {
		if st.Value == "" {
			fmt.Fprintf(&b, "%s\n", st.Name)
			continue
		}
		fmt.Fprintf(&b, "%s=%s\n", st.Name, myQuote(st.Value))
	}
	if s.cfg.ConfigFile != "" {
		fmt.Fprintf(&b, "# the user's file %s, read last so that it wins\n!include %s\n",
			s.cfg.ConfigFile, s.userConfigPath())
	}
	return s.writeFile(s.configPath(), []byte(b.String()))
}

// myQuote double-quotes a my.cnf value that holds spaces, quotes, backslashes or comment
// characters, escaping backslashes and double quotes (the option file reader undoes both).
func myQuote(v string) string {
	if v != strings.TrimSpace(v) || strings.ContainsAny(v, "#;'\" \t\\") {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`) + `"`
	}
	return v
}

// myArgs is mariadbd's command line: the option file first, then the placement options
// again (the command line wins over the user's file).
func (s *Server) myArgs() ([]string, error) {
	if err := s.writeMyCnf(); err != nil {
		return nil, err
	}
	args := []string{
		"--defaults-file=" + s.configPath(),
		"--datadir=" + s.dataDir, "--socket=" + s.socketPath(), "--port=" + strconv.Itoa(s.port),
		"--bind-address=127.0.0.1", "--pid-file=" + filepath.Join(s.dir, "mysqld.pid"),
		"--log-error=" + s.logPath,
	}
	if !s.usesInitFile() {
		return args, nil // the user and database came with the cluster's data
	}
	if err := s.writeInitFile(); err != nil {
		return nil, err
	}
	return append(args, "--init-file="+s.initFilePath()), nil
}

// myReady reports whether the server logged, since its launch, that it accepts connections
// (a probe connection would leave an "Aborted connection" warning in the log).
func (s *Server) myReady() bool {
	if _, err := os.Stat(s.socketPath()); err != nil {
		return false
	}
	return strings.Contains(s.logSince(s.launchOff), "ready for connections")
}

// mySetupSQL is the init file mariadbd runs as it starts (--init-file): the TCP user the
// benchmark connects as, with the instance's random password, its database, no root over TCP.
const mySetupSQL = `CREATE DATABASE IF NOT EXISTS rumbench;
CREATE USER IF NOT EXISTS 'rumbench'@'127.0.0.1' IDENTIFIED BY '%s';
ALTER USER 'rumbench'@'127.0.0.1' IDENTIFIED BY '%s';
GRANT ALL PRIVILEGES ON *.* TO 'rumbench'@'127.0.0.1';
DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1';
`

// mysqlRootSQL closes MySQL's root at localhost, created without a password by
// --initialize-insecure: it gets the instance's random password (MariaDB's root authenticates by
// unix_socket instead, set by mariadb-install-db).
const mysqlRootSQL = "ALTER USER 'root'@'localhost' IDENTIFIED BY '%s';\n"

// initFilePath is the init file of the instance.
func (s *Server) initFilePath() string { return filepath.Join(s.dir, "init.sql") }

// writeInitFile writes the init file, readable by the server's user only (it holds the
// password).
func (s *Server) writeInitFile() error {
	f := s.initFilePath()
	sql := fmt.Sprintf(mySetupSQL, s.password, s.password)
	if s.bins.selfInit {
		sql += fmt.Sprintf(mysqlRootSQL, s.password)
	}
	if err := os.WriteFile(f, []byte(sql), 0o600); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.chown(f)
}

// mySetup reads the server version and its active plugin libraries over rumbench's own
// connection, as the user the init file created, and fails when a plugin of Config.Plugins is
// not active.
func (s *Server) mySetup(ctx context.Context, launchOff int64) error {
	off := s.logSize()
	var lines []string
	err := func() error {
		db, err := sql.Open("mysql", s.DSN())
		if err != nil {
			return err
		}
		defer db.Close()
		var v string
		if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&v); err != nil {
			return err
		}
		lines = append(lines, v)
		rows, err := db.QueryContext(ctx, `SELECT DISTINCT PLUGIN_LIBRARY FROM information_schema.PLUGINS
 WHERE PLUGIN_STATUS = 'ACTIVE' AND PLUGIN_LIBRARY IS NOT NULL`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var lib string
			if err := rows.Scan(&lib); err != nil {
				return err
			}
			lines = append(lines, lib)
		}
		return rows.Err()
	}()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.startError("setup", fmt.Sprintf("could not read the version and plugins (%v)", err), "see the server log", off, err)
	}
	s.version = strings.TrimSpace(lines[0])
	active := map[string]bool{}
	for _, l := range lines[1:] {
		active[strings.TrimSuffix(strings.TrimSpace(l), ".so")] = true
	}
	var missing []string
	for _, p := range s.cfg.Plugins {
		if !active[strings.TrimSuffix(p, ".so")] {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return s.startError("setup", fmt.Sprintf("plugin %s is not active", strings.Join(missing, ", ")),
			"install the plugin's package (ha_rocksdb: mariadb-plugin-rocksdb) or fix the plugin name", launchOff, nil)
	}
	return nil
}
