package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
)

// The statements as PostgreSQL logs them (placeholders as ?), after go-tpc's.
const (
	sqlNoWarehouse = "SELECT w_tax FROM warehouse WHERE w_id = ?"
	sqlNoCustomer  = "SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlNoDistrict  = "SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ? FOR UPDATE"
	sqlNoNextOID   = "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = ? AND d_w_id = ?"
	sqlNoInsOrder  = "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
	sqlNoInsNO     = "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"
	sqlNoItems     = "SELECT i_price, i_name, i_data, i_id FROM item WHERE i_id IN (%s)"
	sqlNoStock     = "SELECT s_i_id, s_quantity, s_data, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10 FROM stock WHERE s_w_id = ? AND s_i_id = ? FOR UPDATE"
	sqlNoUpdStock  = "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?"
	sqlNoInsLine   = "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info, ol_delivery_d) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

	sqlPayUpdDistrict  = "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"
	sqlPaySelDistrict  = "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?"
	sqlPayUpdWarehouse = "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"
	sqlPaySelWarehouse = "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?"
	sqlPayByLast       = "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"
	sqlPayCustomer     = "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE"
	sqlPayCData        = "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlPayUpd          = "UPDATE customer SET c_balance = c_balance + ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlPayUpdData      = "UPDATE customer SET c_balance = c_balance + ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlPayHistory      = "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

	sqlOsByLast = "SELECT c_balance, c_first, c_middle, c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"
	sqlOsByID   = "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	sqlOsLatest = "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT ? OFFSET ?"
	sqlOsLines  = "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"

	sqlDlOldest   = "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id ASC LIMIT ? OFFSET ?"
	sqlDlDelete   = "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"
	sqlDlOrder    = "SELECT o_c_id, o_ol_cnt FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"
	sqlDlUpdOrder = "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"
	sqlDlUpdLines = "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ? AND ol_number IN (%s)"
	sqlDlSum      = "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"
	sqlDlUpdCust  = "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"

	sqlSlNext  = "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?"
	sqlSlItems = "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id BETWEEN ? AND ? ORDER BY ol_i_id"
	sqlSlStock = "SELECT s_quantity FROM stock WHERE s_w_id = ? AND s_i_id IN (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)

func qs(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

// seq is a logged statement sequence being matched: each call takes the next statement when it
// is one of the wanted ones.
type seq struct {
	got []string
	i   int
}

func (s *seq) peek() string {
	if s.i < len(s.got) {
		return s.got[s.i]
	}
	return ""
}

// take consumes the next statement when it is want and says whether it was.
func (s *seq) take(want string) bool {
	if s.peek() == want {
		s.i++
		return true
	}
	return false
}

// items consumes an IN list statement of format f with 5 to 15 values and returns their count.
func (s *seq) in(f string) int {
	for n := minLines; n <= maxLines; n++ {
		if s.take(fmt.Sprintf(f, qs(n))) {
			return n
		}
	}
	return 0
}

// expect returns an error naming the first statement that is not the transaction's, in order.
func expect(tx int, got []string) error {
	s := &seq{got: got}
	must := func(want ...string) error {
		for _, w := range want {
			if !s.take(w) {
				return fmt.Errorf("statement %d: got %q, want %q", s.i+1, s.peek(), w)
			}
		}
		return nil
	}
	var err error
	if err = must("BEGIN"); err != nil {
		return err
	}
	switch tx {
	case txNewOrder:
		if err = must(sqlNoWarehouse, sqlNoCustomer, sqlNoDistrict, sqlNoNextOID, sqlNoInsOrder, sqlNoInsNO); err != nil {
			return err
		}
		n := s.in(sqlNoItems)
		if n == 0 {
			return fmt.Errorf("statement %d: got %q, want the item IN list", s.i+1, s.peek())
		}
		if s.take("ROLLBACK") {
			break
		}
		for range n {
			if err = must(sqlNoStock, sqlNoUpdStock, sqlNoInsLine); err != nil {
				return err
			}
		}
		err = must("COMMIT")
	case txPayment:
		if err = must(sqlPayUpdDistrict, sqlPaySelDistrict, sqlPayUpdWarehouse, sqlPaySelWarehouse); err != nil {
			return err
		}
		s.take(sqlPayByLast)
		if err = must(sqlPayCustomer); err != nil {
			return err
		}
		if s.take(sqlPayCData) {
			err = must(sqlPayUpdData, sqlPayHistory, "COMMIT")
		} else {
			err = must(sqlPayUpd, sqlPayHistory, "COMMIT")
		}
	case txOrderStatus:
		if !s.take(sqlOsByLast) && !s.take(sqlOsByID) {
			return fmt.Errorf("statement 2: got %q, want the customer by last name or by id", s.peek())
		}
		err = must(sqlOsLatest, sqlOsLines, "COMMIT")
	case txDelivery:
		for range Districts {
			if err = must(sqlDlOldest); err != nil {
				return err
			}
			if !s.take(sqlDlDelete) {
				continue
			}
			if err = must(sqlDlOrder, sqlDlUpdOrder); err != nil {
				return err
			}
			if s.in(sqlDlUpdLines) == 0 {
				return fmt.Errorf("statement %d: got %q, want the order lines' update", s.i+1, s.peek())
			}
			if err = must(sqlDlSum, sqlDlUpdCust); err != nil {
				return err
			}
		}
		err = must("COMMIT")
	case txStockLevel:
		if err = must(sqlSlNext, sqlSlItems); err != nil {
			return err
		}
		for s.take(sqlSlStock) {
		}
		err = must("COMMIT")
	}
	if err == nil && s.i < len(got) {
		err = fmt.Errorf("statement %d: %q after the transaction's end", s.i+1, s.peek())
	}
	return err
}

// TestReferenceSQL runs each transaction type 30 times on a private PostgreSQL that logs every
// statement it receives and checks each transaction's statements, in order, against go-tpc's
// (as this workload words them: docs/tpcc.md lists the differences).
func TestReferenceSQL(t *testing.T) {
	ctx := context.Background()
	eng, dir := worktest.LoggingPostgres(t)
	w := tiny(t, 1)
	run := worktest.Steps(t, struct{ table.Engine }{eng}, dir, w, nil).(*Run)
	sess, err := eng.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := newTerminal(run, sess, 0)
	db := eng.(interface{ DB() *sql.DB }).DB()
	const each = 30
	for tx := range numTx {
		for i := range each {
			if _, err := db.ExecContext(ctx, worktest.Mark(fmt.Sprintf("%d.%d", tx, i))); err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.do(ctx, tx); err != nil {
				t.Fatalf("%s %d: %v", txKinds[tx].Name, i, err)
			}
		}
	}
	db.ExecContext(ctx, worktest.Mark(""))
	sess.Close()
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	got := worktest.LoggedStatements(t, dir)
	for tx := range numTx {
		for i := range each {
			g := got[fmt.Sprintf("%d.%d", tx, i)]
			if err := expect(tx, g); err != nil {
				t.Errorf("%s %d: %v\n%s", txKinds[tx].Name, i, err, strings.Join(g, "\n"))
			}
		}
	}
}
