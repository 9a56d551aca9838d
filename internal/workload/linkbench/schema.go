package linkbench

import (
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/table"
)

// The tables, as the reference's DDL has them. The primary key columns come first, in key
// order: linktable (link_type, id1, id2) and counttable (id, link_type); the other columns follow
// in the reference's order.
const (
	LinkTable  = "linktable"
	CountTable = "counttable"
	NodeTable  = "nodetable"
)

// linktable columns.
const (
	lLinkType = iota
	lID1
	lID2
	lVisibility
	lData
	lTime
	lVersion
)

// counttable columns.
const (
	cID = iota
	cLinkType
	cCount
	cTime
	cVersion
)

// nodetable columns.
const (
	nID = iota
	nType
	nVersion
	nTime
	nData
)

// maxMultiget bounds the id2s of one MULTIGET_LINK (the reference's link_multiget_dist_max).
const maxMultiget = 128

var (
	linkTable = &table.Table{Name: LinkTable, KeyLen: 3, Columns: []table.Column{
		{Name: "link_type", Type: table.Int64, NotNull: true},
		{Name: "id1", Type: table.Int64, NotNull: true},
		{Name: "id2", Type: table.Int64, NotNull: true},
		{Name: "visibility", Type: table.Int32, NotNull: true},
		{Name: "data", Type: table.Bytes, MaxLen: 255, NotNull: true},
		{Name: "time", Type: table.Int64, NotNull: true},
		{Name: "version", Type: table.Int64, NotNull: true},
	}, Indexes: []table.Index{{Name: "id1_type", SQLName: "id1_type", Columns: []int{lID1, lLinkType, lVisibility, lTime, lID2, lVersion, lData}}}}

	countTable = &table.Table{Name: CountTable, KeyLen: 2, Columns: []table.Column{
		{Name: "id", Type: table.Int64, NotNull: true},
		{Name: "link_type", Type: table.Int64, NotNull: true},
		{Name: "count", Type: table.Int64, NotNull: true},
		{Name: "time", Type: table.Int64, NotNull: true},
		{Name: "version", Type: table.Int64, NotNull: true},
	}}

	nodeTable = &table.Table{Name: NodeTable, Columns: []table.Column{
		{Name: "id", Type: table.Int64, NotNull: true, AutoIncrement: true},
		{Name: "type", Type: table.Int32, NotNull: true},
		{Name: "version", Type: table.Int64, NotNull: true},
		{Name: "time", Type: table.Int64, NotNull: true},
		{Name: "data", Type: table.Bytes, NotNull: true},
	}}
)

// mysqlDDL is the fork's MySQL DDL (its README, as the reports' runs create the tables): unsigned
// integers, a tinyint visibility, latin1 text columns, a mediumtext node payload, and linktable
// partitioned by key(id1) into 16 partitions. rumbench creates it on MariaDB/MySQL with InnoDB.
var mysqlDDL = map[string][]string{
	LinkTable: {"CREATE TABLE linktable (" +
		"id1 bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"id2 bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"link_type bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"visibility tinyint(3) NOT NULL DEFAULT '0', " +
		"data varchar(255) NOT NULL DEFAULT '', " +
		"time bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"version int(11) unsigned NOT NULL DEFAULT '0', " +
		"PRIMARY KEY (link_type, id1, id2), " +
		"KEY id1_type (id1, link_type, visibility, time, id2, version, data)" +
		") ENGINE=InnoDB DEFAULT CHARSET=latin1 PARTITION BY key(id1) PARTITIONS 16"},
	CountTable: {"CREATE TABLE counttable (" +
		"id bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"link_type bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"count int(10) unsigned NOT NULL DEFAULT '0', " +
		"time bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"version bigint(20) unsigned NOT NULL DEFAULT '0', " +
		"PRIMARY KEY (id, link_type)" +
		") ENGINE=InnoDB DEFAULT CHARSET=latin1"},
	NodeTable: {"CREATE TABLE nodetable (" +
		"id bigint(20) unsigned NOT NULL AUTO_INCREMENT, " +
		"type int(10) unsigned NOT NULL, " +
		"version bigint(20) unsigned NOT NULL, " +
		"time int(10) unsigned NOT NULL, " +
		"data mediumtext NOT NULL, " +
		"PRIMARY KEY(id)" +
		") ENGINE=InnoDB DEFAULT CHARSET=latin1"},
}

// pgDDL is the fork's PostgreSQL DDL (pgsql-ddl.sql) without its schema: numeric(20) ids, link
// types and times, a smallint visibility, the same keys and index; but the payloads are bytea
// where the fork has varchar(255) and text in a latin1 database (rumbench's databases are
// UTF-8, which refuses the payloads' bytes above 127 as text).
var pgDDL = map[string][]string{
	LinkTable: {"CREATE TABLE linktable (" +
		"id1 numeric(20) NOT NULL DEFAULT '0', " +
		"id2 numeric(20) NOT NULL DEFAULT '0', " +
		"link_type numeric(20) NOT NULL DEFAULT '0', " +
		"visibility smallint NOT NULL DEFAULT '0', " +
		"data bytea NOT NULL DEFAULT '', " +
		"time numeric(20) NOT NULL DEFAULT '0', " +
		"version bigint NOT NULL DEFAULT '0', " +
		"PRIMARY KEY (link_type, id1,id2))",
		"CREATE INDEX id1_type on linktable(id1,link_type,visibility,time,id2,version,data)"},
	CountTable: {"CREATE TABLE counttable (" +
		"id numeric(20) NOT NULL DEFAULT '0', " +
		"link_type numeric(20) NOT NULL DEFAULT '0', " +
		"count int NOT NULL DEFAULT '0', " +
		"time numeric(20) NOT NULL DEFAULT '0', " +
		"version numeric(20) NOT NULL DEFAULT '0', " +
		"PRIMARY KEY (id,link_type))"},
	NodeTable: {"CREATE TABLE nodetable (" +
		"id BIGSERIAL NOT NULL, " +
		"type int NOT NULL, " +
		"version numeric NOT NULL, " +
		"time int NOT NULL, " +
		"data bytea NOT NULL, " +
		"PRIMARY KEY(id))"},
}

// dialectOf is the SQL dialect of a server engine the fork has a store for (MariaDB/MySQL,
// PostgreSQL), "" for the other engines: the reference's connections and transactions apply to
// those two.
func dialectOf(info table.Info) string {
	if info.Dialect == table.DialectMySQL || info.Dialect == table.DialectPostgres {
		return info.Dialect
	}
	return ""
}

// referenceTable returns t as it is created on the engine: with the fork's DDL on MariaDB/MySQL
// with InnoDB and on PostgreSQL, else t. On MariaDB/MySQL the fork's latin1 text columns need the
// payloads bound as binary values, which only rumbench's own wire protocol does (the driver binds
// them as strings in the connection's character set, which refuses bytes that are not UTF-8):
// with wire=driver or client=sql the tables are rumbench's.
func referenceTable(info table.Info, t *table.Table) *table.Table {
	var ddl []string
	switch dialectOf(info) {
	case table.DialectMySQL:
		if info.TableEngine == table.TableEngineInnoDB && info.BinaryText {
			ddl = mysqlDDL[t.Name]
		}
	case table.DialectPostgres:
		ddl = pgDDL[t.Name]
	}
	if ddl == nil {
		return t
	}
	c := *t
	c.DDL = ddl
	return &c
}

// linkCols are the columns the reference's link reads return: id1, id2, link_type, visibility,
// data, version, time.
var linkCols = []int{lID1, lID2, lLinkType, lVisibility, lData, lVersion, lTime}

const linkSelect = "SELECT id1, id2, link_type, visibility, data, version, time FROM linktable"

// byLink is the key order of the reference's WHERE id1 = ? AND id2 = ? AND link_type = ?.
var byLink = []int{1, 2, 0}

// stmts are the statements of the request phase in the reference's SQL (the Small Datum fork's
// LinkStoreSql, LinkStoreMysql and LinkStorePgsql, prepared statements), byte for byte but the
// database prefix (linkdb0.) and the count upsert's initial version (bound, not written in), and
// their logical form.
type stmts struct {
	getNode, updateNode, deleteNode, addNode                  *table.Stmt
	addLink, updateLink, linkForUpdate, hideLink, expungeLink *table.Stmt
	countIncUpsert, countInc, countLinks, getLinkList         *table.Stmt
	// multiget[n] reads n id2s of one (id1, link_type).
	multiget [maxMultiget + 1]*table.Stmt
	// Checks: a range of count rows, of index entries, one visible-link count.
	checkCounts, checkLinks, countVisible *table.Stmt
}

func newStmts() *stmts {
	s := &stmts{}
	s.getNode = &table.Stmt{Table: nodeTable, Kind: table.Select, Index: -1, Match: table.Eq, Cols: []int{nID, nType, nVersion, nTime, nData},
		SQL: "SELECT id, type, version, time, data FROM nodetable WHERE id=?"}
	s.updateNode = &table.Stmt{Table: nodeTable, Kind: table.Update, Index: -1, Match: table.Eq, AlsoEq: []int{nType},
		Set: []table.Assign{{Col: nVersion}, {Col: nTime}, {Col: nData}},
		SQL: "UPDATE nodetable SET version=?, time=?, data=? WHERE id=? AND type=?"}
	s.deleteNode = &table.Stmt{Table: nodeTable, Kind: table.Delete, Index: -1, Match: table.Eq, AlsoEq: []int{nType},
		SQL: "DELETE FROM nodetable WHERE id=? and type =?"}
	s.addNode = &table.Stmt{Table: nodeTable, Kind: table.InsertRow, Index: -1, AutoID: true, ReturnID: true,
		SQL:      "INSERT INTO nodetable (type, version, time, data) VALUES (?, ?, ?, ?)",
		Dialects: map[string]string{table.DialectPostgres: "INSERT INTO nodetable (type, version, time, data) VALUES ($1, $2, $3, $4) RETURNING id"}}

	s.addLink = &table.Stmt{Table: linkTable, Kind: table.InsertRow, Index: -1, InsertCols: linkCols,
		SQL: "INSERT INTO linktable (id1, id2, link_type, visibility, data, version, time) VALUES (?, ?, ?, ?, ?, ?, ?)"}
	s.updateLink = &table.Stmt{Table: linkTable, Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq, KeyOrder: byLink,
		Set: []table.Assign{{Col: lVisibility}, {Col: lData}, {Col: lVersion}, {Col: lTime}},
		SQL: "UPDATE linktable SET visibility = ?,     data = ?,     version = ?,     time = ? WHERE id1 = ? AND id2 = ? AND link_type = ?"}
	forUpdate := "SELECT visibility FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ?"
	s.linkForUpdate = &table.Stmt{Table: linkTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.Eq, KeyOrder: byLink,
		ForUpdate: true, Cols: []int{lVisibility}, SQL: forUpdate + " FOR UPDATE",
		// SQLite has no FOR UPDATE: a write transaction there excludes every other writer.
		Dialects: map[string]string{table.DialectSQLite: forUpdate}}
	s.hideLink = &table.Stmt{Table: linkTable, Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq, KeyOrder: byLink,
		Set: []table.Assign{{Col: lVisibility, Const: true, Value: table.Value{I: visibilityHidden}}},
		SQL: "UPDATE linktable SET visibility = 0 WHERE id1 = ? AND id2 = ? AND link_type = ?"}
	s.expungeLink = &table.Stmt{Table: linkTable, Kind: table.Delete, Index: -1, Prefix: 2, Match: table.Eq, KeyOrder: byLink,
		SQL: "DELETE FROM linktable WHERE id1 = ? AND id2 = ? AND link_type = ?"}

	incCount := []table.Assign{{Col: cCount, AddArg: true}, {Col: cVersion, Add: 1}, {Col: cTime}}
	s.countIncUpsert = &table.Stmt{Table: countTable, Kind: table.Upsert, Index: -1, Set: incCount,
		SQL: "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE count = count + ?, version = version + 1, time = ?",
		Dialects: map[string]string{
			table.DialectPostgres: "INSERT INTO counttable(id, link_type, count, time, version) VALUES ($1, $2, $3, $4, $5) ON CONFLICT ON CONSTRAINT counttable_pkey DO UPDATE SET  count = counttable.count + $6, version = counttable.version + 1 , time = $7",
			table.DialectSQLite:   "INSERT INTO counttable (id, link_type, count, time, version) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id, link_type) DO UPDATE SET count = count + ?, version = version + 1, time = ?",
		}}
	s.countInc = &table.Stmt{Table: countTable, Kind: table.Update, Index: -1, Prefix: 1, Match: table.Eq, Set: incCount,
		SQL: "UPDATE counttable SET count = count + ?,     version = version + 1,     time = ? WHERE id = ? AND link_type = ?"}
	s.countLinks = &table.Stmt{Table: countTable, Kind: table.Select, Index: -1, Prefix: 1, Match: table.Eq, Cols: []int{cCount},
		SQL: "SELECT count from counttable WHERE id = ? AND link_type = ?"}
	listWhere := " WHERE id1 = ? AND link_type = ?  AND time >= ? AND time <= ? AND visibility = 1 ORDER BY time DESC LIMIT ? OFFSET ?"
	s.getLinkList = &table.Stmt{Table: linkTable, Kind: table.Select, Index: 0, Prefix: 3, Consts: []table.Value{{I: visibilityDefault}},
		Match: table.Between, Desc: true, Limit: true, Cols: linkCols,
		SQL:      linkSelect + " FORCE INDEX(id1_type) " + listWhere,
		Dialects: map[string]string{table.DialectPostgres: linkSelect + listWhere, table.DialectSQLite: linkSelect + listWhere}}
	for n := 1; n <= maxMultiget; n++ {
		// Sent as text with the ids written in, as the reference sends it (a Statement, not a
		// prepared one): the arguments are integers, so the text cannot carry anything else.
		s.multiget[n] = &table.Stmt{Table: linkTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.In, InLen: n,
			KeyOrder: []int{1, 0}, Cols: linkCols, Unprepared: true,
			SQL: linkSelect + " WHERE id1 = ? AND link_type = ? and id2 IN (" + strings.TrimSuffix(strings.Repeat("?,", n), ",") + ")"}
	}

	s.checkCounts = &table.Stmt{Table: countTable, Kind: table.Select, Index: -1, Match: table.Between, Cols: []int{cID, cLinkType, cCount},
		SQL: "SELECT id, link_type, count FROM counttable WHERE id BETWEEN ? AND ?"}
	s.checkLinks = &table.Stmt{Table: linkTable, Kind: table.Select, Index: 0, Match: table.Between, Cols: []int{lID1, lLinkType, lVisibility},
		SQL: "SELECT id1, link_type, visibility FROM linktable WHERE id1 BETWEEN ? AND ?"}
	s.countVisible = &table.Stmt{Table: linkTable, Kind: table.Select, Index: 0, Prefix: 3, Consts: []table.Value{{I: visibilityDefault}},
		Match: table.All, Agg: table.Count, AggCol: lID2,
		SQL: "SELECT COUNT(id2) FROM linktable WHERE id1 = ? AND link_type = ? AND visibility = 1"}
	return s
}

// validate checks every statement's logical form once.
func (s *stmts) validate() error {
	all := []*table.Stmt{s.getNode, s.updateNode, s.deleteNode, s.addNode, s.addLink, s.updateLink, s.linkForUpdate,
		s.hideLink, s.expungeLink, s.countIncUpsert, s.countInc, s.countLinks, s.getLinkList, s.checkCounts, s.checkLinks, s.countVisible}
	all = append(all, s.multiget[1:]...)
	for _, st := range all {
		if err := st.Validate(); err != nil {
			return fmt.Errorf("linkbench: %q: %w", st.SQL, err)
		}
	}
	return nil
}
