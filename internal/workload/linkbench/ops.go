package linkbench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/linkbench/lbgen"
)

// requester is one request client: its sessions, request stream and buffers.
//
// On the servers the fork has a store for (MariaDB/MySQL, PostgreSQL) a requester holds two
// connections, as the reference's does: sess, in autocommit mode, for the reads and the node
// operations, and w for the link writes. On MariaDB/MySQL w runs with autocommit off (implicit):
// a write transaction starts with its first statement, no BEGIN is sent; on PostgreSQL the
// reference's driver sends BEGIN before it. Elsewhere w is sess.
type requester struct {
	r        *Run
	st       *stmts
	sess, w  table.Session
	implicit bool
	q        *lbgen.Requester
	req      lbgen.Request
	rng      gen.Rand
	out      *table.Rows
	args     []table.Value
}

func iv(v int64) table.Value { return table.Value{I: v} }

// exec runs st with c.args on the read session, results in c.out (reset to st's columns).
func (c *requester) exec(ctx context.Context, st *table.Stmt) (int64, error) {
	c.out.Reset(max(len(st.Cols), 1))
	return c.sess.Exec(ctx, st, c.args, c.out)
}

// write runs st with c.args on the write session, results in c.out.
func (c *requester) write(ctx context.Context, st *table.Stmt) (int64, error) {
	c.out.Reset(max(len(st.Cols), 1))
	return c.w.Exec(ctx, st, c.args, c.out)
}

// begin starts a write transaction: nothing to send when autocommit is off.
func (c *requester) begin(ctx context.Context) error {
	if c.implicit {
		return nil
	}
	return c.w.Begin(ctx)
}

// setImplicit turns autocommit off on the write session of a MariaDB/MySQL requester, as the
// reference's driver does when it opens its write connection.
func (c *requester) setImplicit(ctx context.Context) error {
	s, ok := c.w.(table.SQLSession)
	if !ok {
		return errors.New("linkbench: the write session runs no SQL")
	}
	if _, err := s.ExecSQL(ctx, "SET autocommit=0", nil, c.out); err != nil {
		return err
	}
	c.implicit = true
	return nil
}

// do runs the drawn request and returns the rows it read or wrote.
func (c *requester) do(ctx context.Context) (int, error) {
	q := &c.req
	switch q.Op {
	case lbgen.OpAddLink:
		return c.writeLink(ctx, true)
	case lbgen.OpUpdateLink:
		return c.writeLink(ctx, false)
	case lbgen.OpDeleteLink:
		return c.deleteLink(ctx)
	case lbgen.OpCountLink:
		c.args = append(c.args[:0], iv(q.ID1), iv(q.LinkType))
		n, err := c.exec(ctx, c.st.countLinks)
		return int(n), err
	case lbgen.OpMultigetLink:
		c.args = append(c.args[:0], iv(q.ID1), iv(q.LinkType))
		for _, id2 := range q.ID2s {
			c.args = append(c.args, iv(id2))
		}
		n, err := c.exec(ctx, c.st.multiget[len(q.ID2s)])
		return int(n), err
	case lbgen.OpGetLinkList:
		c.args = append(c.args[:0], iv(q.ID1), iv(q.LinkType), iv(q.MinTime), iv(q.MaxTime), iv(int64(q.Limit)), iv(int64(q.Offset)))
		n, err := c.exec(ctx, c.st.getLinkList)
		if err != nil {
			return 0, err
		}
		var oldest int64
		if c.out.N > 0 {
			oldest = c.out.Row(c.out.N - 1)[6].I // time, the last of linkCols
		}
		c.q.LinkListDone(&c.rng, q, int(n), oldest)
		return int(n), nil
	case lbgen.OpAddNode:
		c.args = append(c.args[:0], iv(q.NodeType), iv(q.Version), iv(time.Now().Unix()), table.Value{B: q.Data})
		if _, err := c.exec(ctx, c.st.addNode); err != nil {
			return 0, err
		}
		c.r.nodesAdded.Add(1)
		return 1, nil
	case lbgen.OpUpdateNode:
		c.args = append(c.args[:0], iv(q.Version), iv(time.Now().Unix()), table.Value{B: q.Data}, iv(q.ID1), iv(q.NodeType))
		n, err := c.exec(ctx, c.st.updateNode)
		return int(n), err
	case lbgen.OpDeleteNode:
		c.args = append(c.args[:0], iv(q.ID1), iv(q.NodeType))
		n, err := c.exec(ctx, c.st.deleteNode)
		if n == 1 {
			c.r.nodesDeleted.Add(1)
		}
		return int(n), err
	case lbgen.OpGetNode:
		c.args = append(c.args[:0], iv(q.ID1))
		n, err := c.exec(ctx, c.st.getNode)
		return int(n), err
	}
	return 0, fmt.Errorf("linkbench: no operation %v", q.Op)
}

// rollback ends the open transaction after err and returns err.
func (c *requester) rollback(ctx context.Context, err error) error {
	if rerr := c.w.Rollback(ctx); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// writeLink is ADD_LINK (insert first) and UPDATE_LINK (update first), as the reference's
// newLinkLoop does them: an insert that meets an existing link turns into an update, an update
// that finds none into an insert, each in its own transaction.
//
//   - insert: INSERT the link, then count it (an upsert of its count row, +1 when visible).
//   - update: lock and read the link's visibility (SELECT ... FOR UPDATE), UPDATE the link, and
//     when the visibility changed, count = count ± 1. An UPDATE that changed nothing (MySQL
//     counts changed rows: the same values again) rolls back, as the reference does.
//
// A duplicate key on MariaDB/MySQL sends no ROLLBACK: the reference's driver sends one only
// when the server said a transaction is open, and an error reply says nothing of it (the last
// reply, the previous COMMIT's, said none is), so the update runs on in the same transaction.
func (c *requester) writeLink(ctx context.Context, insert bool) (int, error) {
	q := &c.req
	now := time.Now().UnixMilli()
	open := false // a transaction is open after a duplicate key (implicit mode)
	for range 4 {
		if !open {
			if err := c.begin(ctx); err != nil {
				return 0, err
			}
		}
		open = false
		if insert {
			c.args = append(c.args[:0], iv(q.ID1), iv(q.ID2), iv(q.LinkType), iv(int64(q.Visibility)), table.Value{B: q.Data},
				iv(q.Version), iv(now))
			_, err := c.write(ctx, c.st.addLink)
			if errors.Is(err, table.ErrDuplicate) {
				insert = false
				if c.implicit {
					open = true
					continue
				}
				if err := c.rollback(ctx, nil); err != nil {
					return 0, err
				}
				continue
			}
			if err != nil {
				return 0, c.rollback(ctx, err)
			}
			base := int64(0)
			if q.Visibility == visibilityDefault {
				base = 1
			}
			c.args = append(c.args[:0], iv(q.ID1), iv(q.LinkType), iv(base), iv(now), iv(0), iv(base), iv(now))
			if _, err := c.write(ctx, c.st.countIncUpsert); err != nil {
				return 0, c.rollback(ctx, err)
			}
			return 1, c.w.Commit(ctx)
		}
		c.args = append(c.args[:0], iv(q.ID1), iv(q.ID2), iv(q.LinkType))
		n, err := c.write(ctx, c.st.linkForUpdate)
		if err != nil {
			return 0, c.rollback(ctx, err)
		}
		if n == 0 {
			if err := c.rollback(ctx, nil); err != nil {
				return 0, err
			}
			insert = true
			continue
		}
		was := c.out.Row(0)[0].I
		c.args = append(c.args[:0], iv(int64(q.Visibility)), table.Value{B: q.Data}, iv(q.Version), iv(now), iv(q.ID1), iv(q.ID2), iv(q.LinkType))
		n, err = c.write(ctx, c.st.updateLink)
		if err != nil {
			return 0, c.rollback(ctx, err)
		}
		if n == 0 {
			return 0, c.rollback(ctx, nil)
		}
		if was != int64(q.Visibility) {
			delta := int64(-1)
			if q.Visibility == visibilityDefault {
				delta = 1
			}
			if err := c.countInc(ctx, delta, now); err != nil {
				return 0, c.rollback(ctx, err)
			}
		}
		return 1, c.w.Commit(ctx)
	}
	return 0, fmt.Errorf("link %d/%d/%d: inserted and deleted by others four times over", q.ID1, q.LinkType, q.ID2)
}

// countInc adds delta to the count row of the request's (id1, link_type), which must exist.
func (c *requester) countInc(ctx context.Context, delta, now int64) error {
	q := &c.req
	c.args = append(c.args[:0], iv(delta), iv(now), iv(q.ID1), iv(q.LinkType))
	n, err := c.write(ctx, c.st.countInc)
	if err == nil && n != 1 {
		err = fmt.Errorf("count row of %d/%d: %d rows updated, want 1", q.ID1, q.LinkType, n)
	}
	return err
}

// deleteLink is DELETE_LINK as the reference does it, in one transaction: lock and read the
// link's visibility; a missing link, or a hidden one when hiding, changes nothing; else hide it
// (visibility 0) or, with Expunge, delete it, and when it was visible count = count − 1.
func (c *requester) deleteLink(ctx context.Context) (int, error) {
	q := &c.req
	if err := c.begin(ctx); err != nil {
		return 0, err
	}
	c.args = append(c.args[:0], iv(q.ID1), iv(q.ID2), iv(q.LinkType))
	n, err := c.write(ctx, c.st.linkForUpdate)
	if err != nil {
		return 0, c.rollback(ctx, err)
	}
	if n == 0 {
		return 0, c.rollback(ctx, nil)
	}
	was := c.out.Row(0)[0].I
	expunge := c.r.w.Cfg.Expunge
	if was == visibilityHidden && !expunge {
		return 0, c.rollback(ctx, nil)
	}
	st := c.st.hideLink
	if expunge {
		st = c.st.expungeLink
	}
	c.args = append(c.args[:0], iv(q.ID1), iv(q.ID2), iv(q.LinkType))
	if _, err := c.write(ctx, st); err != nil {
		return 0, c.rollback(ctx, err)
	}
	if was == visibilityDefault {
		if err := c.countInc(ctx, -1, time.Now().UnixMilli()); err != nil {
			return 0, c.rollback(ctx, err)
		}
	}
	return 1, c.w.Commit(ctx)
}
