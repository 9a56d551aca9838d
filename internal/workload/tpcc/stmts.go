package tpcc

import (
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/table"
)

// Order lines of an order (clause 2.4.1.3) and the order ids Stock-Level looks at (2.8.2.2).
const (
	minLines         = 5
	maxLines         = 15
	stockLevelOrders = 20
	// stockChunk is the item ids of one Stock-Level stock read (an IN list, padded with the
	// item id 0, which no row has).
	stockChunk = 20
)

// stmts are the statements of the five transactions, after go-tpc's (pingcap/go-tpc, tpcc/*.go)
// where the table model can say them, and the consistency checks' statements.
type stmts struct {
	// New-Order.
	noWarehouse, noCustomer, noDistrict, noNextOID, noInsOrder, noInsNewOrder *table.Stmt
	noItems                                                                   [maxLines + 1]*table.Stmt
	noStock, noUpdStock, noInsLine                                            *table.Stmt
	// Payment.
	payUpdDistrict, paySelDistrict, payUpdWarehouse, paySelWarehouse, payByLast *table.Stmt
	payCustomer, payCData, payUpdCustomer, payUpdCustomerData, payInsHistory    *table.Stmt
	// Order-Status.
	osByLast, osByID, osLatest, osLines *table.Stmt
	// Delivery.
	dlOldest, dlDelNewOrder, dlOrder, dlUpdOrder, dlSum, dlUpdCustomer *table.Stmt
	dlUpdLines                                                         [maxLines + 1]*table.Stmt
	// Stock-Level.
	slNextOID, slItems, slStock *table.Stmt
	// Consistency checks.
	ckWarehouse, ckDistricts, ckMaxOrder, ckMaxNewOrder, ckMinNewOrder, ckCountNewOrder, ckSumOLCnt, ckCountLines *table.Stmt
	// plantYTD adds to a warehouse's w_ytd (tests plant an inconsistency with it).
	plantYTD *table.Stmt
}

// forUpdate returns the dialect texts of a SELECT ... FOR UPDATE: SQLite has no FOR UPDATE (a
// write transaction there excludes every other writer).
func forUpdate(q string) (string, map[string]string) {
	return q + " FOR UPDATE", map[string]string{table.DialectSQLite: q}
}

func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

func newStmts() *stmts {
	s := &stmts{}
	s.newOrderStmts()
	s.paymentStmts()
	s.orderStatusStmts()
	s.deliveryStmts()
	s.stockLevelStmts()
	s.checkStmts()
	return s
}

// sel is a Select of cols of t by its primary key, its first prefix+1 columns given.
func sel(t *table.Table, prefix int, cols []int, q string) *table.Stmt {
	return &table.Stmt{Table: t, Kind: table.Select, Index: -1, Prefix: prefix, Match: table.Eq, Cols: cols, SQL: q}
}

// newOrderStmts makes the New-Order statements.
func (s *stmts) newOrderStmts() {
	// New-Order (go-tpc: newOrder*). go-tpc reads w_tax with the customer in one join; the
	// table model reads the two rows apart, as the specification lists them.
	s.noWarehouse = sel(warehouseTable, 0, []int{wTax}, "SELECT w_tax FROM warehouse WHERE w_id = ?")
	s.noCustomer = sel(customerTable, 2, []int{cDiscount, cLast, cCredit},
		"SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.noDistrict = sel(districtTable, 1, []int{dNextOID, dTax}, "")
	s.noDistrict.KeyOrder, s.noDistrict.ForUpdate = []int{1, 0}, true
	s.noDistrict.SQL, s.noDistrict.Dialects = forUpdate("SELECT d_next_o_id, d_tax FROM district WHERE d_id = ? AND d_w_id = ?")
	s.noNextOID = &table.Stmt{Table: districtTable, Kind: table.Update, Index: -1, Prefix: 1, Match: table.Eq, KeyOrder: []int{1, 0},
		Set: []table.Assign{{Col: dNextOID, Add: 1}}, SQL: "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_id = ? AND d_w_id = ?"}
	s.noInsOrder = &table.Stmt{Table: ordersTable, Kind: table.InsertRow, Index: -1,
		InsertCols: []int{oID, oDID, oWID, oCID, oEntryD, oCarrierID, oOLCnt, oAllLocal},
		SQL:        "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"}
	s.noInsNewOrder = &table.Stmt{Table: newOrderTable, Kind: table.InsertRow, Index: -1, InsertCols: []int{noOID, noDID, noWID},
		SQL: "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)"}
	for n := minLines; n <= maxLines; n++ {
		s.noItems[n] = &table.Stmt{Table: itemTable, Kind: table.Select, Index: -1, Match: table.In, InLen: n,
			Cols: []int{iPrice, iName, iData, iID}, SQL: "SELECT i_price, i_name, i_data, i_id FROM item WHERE i_id IN (" + placeholders(n) + ")"}
	}
	stockCols := []int{sIID, sQuantity, sData}
	stockSel := "SELECT s_i_id, s_quantity, s_data"
	for d := range Districts {
		stockCols = append(stockCols, sDist01+d)
		stockSel += fmt.Sprintf(", s_dist_%02d", d+1)
	}
	s.noStock = sel(stockTable, 1, stockCols, "")
	s.noStock.ForUpdate = true
	s.noStock.SQL, s.noStock.Dialects = forUpdate(stockSel + " FROM stock WHERE s_w_id = ? AND s_i_id = ?")
	s.noUpdStock = &table.Stmt{Table: stockTable, Kind: table.Update, Index: -1, Prefix: 1, Match: table.Eq, KeyOrder: []int{1, 0},
		Set: []table.Assign{{Col: sQuantity}, {Col: sYTD, AddArg: true}, {Col: sOrderCnt, Add: 1}, {Col: sRemoteCnt, AddArg: true}},
		SQL: "UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + ? WHERE s_i_id = ? AND s_w_id = ?"}
	s.noInsLine = &table.Stmt{Table: orderLineTable, Kind: table.InsertRow, Index: -1,
		InsertCols: []int{olOID, olDID, olWID, olNumber, olIID, olSupplyWID, olQuantity, olAmount, olDistInfo, olDeliveryD},
		SQL:        "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info, ol_delivery_d) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"}

}

// paymentStmts makes the Payment statements.
func (s *stmts) paymentStmts() {
	// Payment (go-tpc: payment*).
	s.payUpdDistrict = &table.Stmt{Table: districtTable, Kind: table.Update, Index: -1, Prefix: 1, Match: table.Eq,
		Set: []table.Assign{{Col: dYTD, AddArg: true}}, SQL: "UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?"}
	s.paySelDistrict = sel(districtTable, 1, []int{dStreet1, dStreet2, dCity, dState, dZip, dName},
		"SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name FROM district WHERE d_w_id = ? AND d_id = ?")
	s.payUpdWarehouse = &table.Stmt{Table: warehouseTable, Kind: table.Update, Index: -1, Match: table.Eq,
		Set: []table.Assign{{Col: wYTD, AddArg: true}}, SQL: "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"}
	s.paySelWarehouse = sel(warehouseTable, 0, []int{wStreet1, wStreet2, wCity, wState, wZip, wName},
		"SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name FROM warehouse WHERE w_id = ?")
	s.payByLast = &table.Stmt{Table: customerTable, Kind: table.Select, Index: 0, Prefix: 3, Match: table.All, Cols: []int{cID},
		SQL: "SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"}
	payCols := []int{cFirst, cMiddle, cLast, cStreet1, cStreet2, cCity, cState, cZip, cPhone, cCredit, cCreditLim, cDiscount, cBalance, cSince}
	s.payCustomer = sel(customerTable, 2, payCols, "")
	s.payCustomer.ForUpdate = true
	s.payCustomer.SQL, s.payCustomer.Dialects = forUpdate("SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.payCData = sel(customerTable, 2, []int{cData}, "SELECT c_data FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	payUpd := []table.Assign{{Col: cBalance, AddArg: true}, {Col: cYTDPayment, AddArg: true}, {Col: cPaymentCnt, Add: 1}}
	const payWhere = " WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"
	s.payUpdCustomer = &table.Stmt{Table: customerTable, Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq, Set: payUpd,
		SQL: "UPDATE customer SET c_balance = c_balance + ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1" + payWhere}
	s.payUpdCustomerData = &table.Stmt{Table: customerTable, Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq,
		Set: append(payUpd[:3:3], table.Assign{Col: cData}),
		SQL: "UPDATE customer SET c_balance = c_balance + ?, c_ytd_payment = c_ytd_payment + ?, c_payment_cnt = c_payment_cnt + 1, c_data = ?" + payWhere}
	s.payInsHistory = &table.Stmt{Table: historyTable, Kind: table.InsertRow, Index: -1, AutoID: true,
		InsertCols: []int{hCDID, hCWID, hCID, hDID, hWID, hDate, hAmount, hData},
		SQL:        "INSERT INTO history (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"}

}

// orderStatusStmts makes the Order-Status statements.
func (s *stmts) orderStatusStmts() {
	// Order-Status (go-tpc: orderStatus*; its count of the customers by last name is left out:
	// the list itself gives the count).
	s.osByLast = &table.Stmt{Table: customerTable, Kind: table.Select, Index: 0, Prefix: 3, Match: table.All,
		Cols: []int{cBalance, cFirst, cMiddle, cID},
		SQL:  "SELECT c_balance, c_first, c_middle, c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first"}
	s.osByID = sel(customerTable, 2, []int{cBalance, cFirst, cMiddle, cLast},
		"SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	s.osLatest = &table.Stmt{Table: ordersTable, Kind: table.Select, Index: 0, Prefix: 3, Match: table.All, Desc: true, Limit: true,
		Cols: []int{oID, oCarrierID, oEntryD},
		SQL:  "SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? ORDER BY o_id DESC LIMIT ? OFFSET ?"}
	s.osLines = &table.Stmt{Table: orderLineTable, Kind: table.Select, Index: -1, Prefix: 3, Match: table.All,
		Cols: []int{olIID, olSupplyWID, olQuantity, olAmount, olDeliveryD},
		SQL:  "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"}

}

// deliveryStmts makes the Delivery statements.
func (s *stmts) deliveryStmts() {
	// Delivery (go-tpc: delivery*, which does the ten districts at once with row-value IN
	// lists; here district by district, as the specification describes it).
	s.dlOldest = &table.Stmt{Table: newOrderTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.All, Limit: true,
		Cols: []int{noOID}, SQL: "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id ASC LIMIT ? OFFSET ?"}
	s.dlDelNewOrder = &table.Stmt{Table: newOrderTable, Kind: table.Delete, Index: -1, Prefix: 2, Match: table.Eq,
		SQL: "DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?"}
	s.dlOrder = sel(ordersTable, 2, []int{oCID, oOLCnt}, "SELECT o_c_id, o_ol_cnt FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?")
	s.dlUpdOrder = &table.Stmt{Table: ordersTable, Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq,
		Set: []table.Assign{{Col: oCarrierID}}, SQL: "UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?"}
	for n := minLines; n <= maxLines; n++ {
		s.dlUpdLines[n] = &table.Stmt{Table: orderLineTable, Kind: table.Update, Index: -1, Prefix: 3, Match: table.In, InLen: n,
			Set: []table.Assign{{Col: olDeliveryD}},
			SQL: "UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ? AND ol_number IN (" + placeholders(n) + ")"}
	}
	s.dlSum = &table.Stmt{Table: orderLineTable, Kind: table.Select, Index: -1, Prefix: 3, Match: table.All, Agg: table.Sum, AggCol: olAmount,
		SQL: "SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?"}
	s.dlUpdCustomer = &table.Stmt{Table: customerTable, Kind: table.Update, Index: -1, Prefix: 2, Match: table.Eq,
		Set: []table.Assign{{Col: cBalance, AddArg: true}, {Col: cDeliveryCnt, Add: 1}},
		SQL: "UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?"}

}

// stockLevelStmts makes the Stock-Level statements.
func (s *stmts) stockLevelStmts() {
	// Stock-Level (go-tpc: one join of order_line and stock counting DISTINCT s_i_id below
	// the threshold; the table model has no join: the distinct items of the district's last 20
	// orders, then their stock rows by primary key, counted below the threshold by the client).
	s.slNextOID = sel(districtTable, 1, []int{dNextOID}, "SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?")
	s.slItems = &table.Stmt{Table: orderLineTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.Between,
		Agg: table.Distinct, AggCol: olIID, Cols: []int{olIID},
		SQL: "SELECT DISTINCT ol_i_id FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id BETWEEN ? AND ? ORDER BY ol_i_id"}
	s.slStock = &table.Stmt{Table: stockTable, Kind: table.Select, Index: -1, Prefix: 1, Match: table.In, InLen: stockChunk,
		Cols: []int{sQuantity}, SQL: "SELECT s_quantity FROM stock WHERE s_w_id = ? AND s_i_id IN (" + placeholders(stockChunk) + ")"}

}

// checkStmts makes the consistency check's statements.
func (s *stmts) checkStmts() {
	// Consistency conditions 1-4 (clause 3.3.2), district by district.
	s.ckWarehouse = sel(warehouseTable, 0, []int{wYTD}, "SELECT w_ytd FROM warehouse WHERE w_id = ?")
	s.ckDistricts = &table.Stmt{Table: districtTable, Kind: table.Select, Index: -1, Prefix: 1, Match: table.All, Cols: []int{dID, dYTD, dNextOID},
		SQL: "SELECT d_id, d_ytd, d_next_o_id FROM district WHERE d_w_id = ?"}
	s.ckMaxOrder = &table.Stmt{Table: ordersTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.All, Desc: true, Limit: true,
		Cols: []int{oID}, SQL: "SELECT o_id FROM orders WHERE o_w_id = ? AND o_d_id = ? ORDER BY o_id DESC LIMIT ? OFFSET ?"}
	s.ckMaxNewOrder = &table.Stmt{Table: newOrderTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.All, Desc: true, Limit: true,
		Cols: []int{noOID}, SQL: "SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id DESC LIMIT ? OFFSET ?"}
	s.ckMinNewOrder = s.dlOldest
	s.ckCountNewOrder = &table.Stmt{Table: newOrderTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.All, Agg: table.Count, AggCol: noOID,
		SQL: "SELECT COUNT(no_o_id) FROM new_order WHERE no_w_id = ? AND no_d_id = ?"}
	s.ckSumOLCnt = &table.Stmt{Table: ordersTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.All, Agg: table.Sum, AggCol: oOLCnt,
		SQL: "SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = ? AND o_d_id = ?"}
	s.ckCountLines = &table.Stmt{Table: orderLineTable, Kind: table.Select, Index: -1, Prefix: 2, Match: table.All, Agg: table.Count, AggCol: olOID,
		SQL: "SELECT COUNT(ol_o_id) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ?"}
	s.plantYTD = &table.Stmt{Table: warehouseTable, Kind: table.Update, Index: -1, Match: table.Eq,
		Set: []table.Assign{{Col: wYTD, AddArg: true}}, SQL: "UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?"}
}

// validate checks every statement's logical form once.
func (s *stmts) validate() error {
	all := []*table.Stmt{s.noWarehouse, s.noCustomer, s.noDistrict, s.noNextOID, s.noInsOrder, s.noInsNewOrder, s.noStock, s.noUpdStock,
		s.noInsLine, s.payUpdDistrict, s.paySelDistrict, s.payUpdWarehouse, s.paySelWarehouse, s.payByLast, s.payCustomer, s.payCData,
		s.payUpdCustomer, s.payUpdCustomerData, s.payInsHistory, s.osByLast, s.osByID, s.osLatest, s.osLines, s.dlOldest,
		s.dlDelNewOrder, s.dlOrder, s.dlUpdOrder, s.dlSum, s.dlUpdCustomer, s.slNextOID, s.slItems, s.slStock, s.ckWarehouse,
		s.ckDistricts, s.ckMaxOrder, s.ckMaxNewOrder, s.ckCountNewOrder, s.ckSumOLCnt, s.ckCountLines, s.plantYTD}
	all = append(all, s.noItems[minLines:]...)
	all = append(all, s.dlUpdLines[minLines:]...)
	for _, st := range all {
		if err := st.Validate(); err != nil {
			return fmt.Errorf("tpcc: %q: %w", st.SQL, err)
		}
	}
	return nil
}
