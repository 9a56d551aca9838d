package table

import (
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/input"
)

// MaxIdentLen is the longest table, column or index name the table model accepts, in bytes:
// PostgreSQL's identifier limit (NAMEDATALEN-1), the smallest of the engines'.
const MaxIdentLen = 63

// IdentRule says in words which names CheckIdent accepts, for error messages.
const IdentRule = "a letter or _, then letters, digits or _, at most 63 characters, not an SQL reserved word"

// CheckIdent reports whether name is a plain identifier that every engine takes as it is: a
// letter or underscore, then ASCII letters, digits or underscores, 1..MaxIdentLen bytes, and not
// a reserved word of PostgreSQL, MySQL/MariaDB or SQLite (compared without case). Such a name
// needs no quoting in any SQL dialect and is a valid MongoDB collection, field and database
// name, so SQL text and documents built from it carry it unchanged. The error says what is
// wrong with the name and what is valid; long names are cut in it (input.Short).
func CheckIdent(name string) error {
	if name == "" {
		return fmt.Errorf("empty name: want %s", IdentRule)
	}
	if len(name) > MaxIdentLen {
		return fmt.Errorf("%s: %d characters, more than %d: want %s", input.Short(name), len(name), MaxIdentLen, IdentRule)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !letter && !(i > 0 && '0' <= c && c <= '9') {
			return fmt.Errorf("%q: character %q at %d is not allowed: want %s", input.Short(name), c, i, IdentRule)
		}
	}
	if reserved[strings.ToLower(name)] {
		return fmt.Errorf("%s: a reserved word in SQL: want %s", name, IdentRule)
	}
	return nil
}

// reserved holds the words that PostgreSQL 15, MySQL 8 / MariaDB 10.11 or SQLite 3 reserve, in
// lower case: a table or column of that name needs quoting in at least one dialect. (SQLite's
// keywords that it also takes as names, such as abort or view, are not among them.)
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(reservedWords) {
		m[w] = true
	}
	return m
}()

const reservedWords = `
accessible add all alter analyse analyze and any array as asc asensitive asymmetric authorization
autoincrement before between bigint binary blob both by call cascade case cast change char
character check collate collation column commit concurrently condition constraint continue convert
create cross cube cume_dist current_catalog current_date current_role current_schema current_time
current_timestamp current_user cursor database databases day_hour day_microsecond day_minute
day_second dec decimal declare default deferrable delayed delete dense_rank desc describe
deterministic distinct distinctrow div do double drop dual each else elseif empty enclosed end
escaped except exists exit explain false fetch first_value float float4 float8 for force foreign
freeze from full fulltext function generated get grant group grouping groups having high_priority
hour_microsecond hour_minute hour_second if ignore ilike in index indexed infile initially inner
inout insensitive insert int int1 int2 int3 int4 int8 integer intersect interval into
io_after_gtids io_before_gtids is isnull iterate join json_table key keys kill lag last_value
lateral lead leading leave left like limit linear lines load localtime localtimestamp lock long
longblob longtext loop low_priority master_bind master_ssl_verify_server_cert match maxvalue
mediumblob mediumint mediumtext middleint minute_microsecond minute_second mod modifies natural
no_write_to_binlog not notnull nth_value ntile null numeric of offset on only optimize
optimizer_costs option optionally or order out outer outfile over overlaps partition percent_rank
placing precision primary procedure purge range rank read read_write reads real recursive
references regexp release rename repeat replace require resignal restrict return returning revoke
right rlike row row_number rows schema schemas second_microsecond select sensitive separator
session_user set show signal similar smallint some spatial specific sql sql_big_result
sql_calc_found_rows sql_small_result sqlexception sqlstate sqlwarning ssl starting stored
straight_join symmetric system system_user table tablesample terminated then tinyblob tinyint
tinytext to trailing transaction trigger true undo union unique unlock unsigned update usage use
user using utc_date utc_time utc_timestamp values varbinary varchar varcharacter variadic varying
verbose virtual when where while window with write xor year_month zerofill
`
