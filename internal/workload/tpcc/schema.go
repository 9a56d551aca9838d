package tpcc

import (
	"context"

	"github.com/rumbench/rumbench/internal/table"
)

// The nine tables of the TPC-C specification (clause 1.3), named as go-tpc names them. The
// table model puts the primary key columns first, in key order; the other columns follow in the
// specification's order. Money is held in cents and rates (tax, discount) in ten-thousandths,
// as integers (the specification's DECIMAL(12,2) and DECIMAL(4,4)): the table model has no
// decimal type. Dates are timestamps in seconds; the specification's NULL dates and carrier ids
// (undelivered orders) are 0.
const (
	Warehouse = "warehouse"
	District  = "district"
	Customer  = "customer"
	History   = "history"
	NewOrder  = "new_order"
	Orders    = "orders"
	OrderLine = "order_line"
	Item      = "item"
	Stock     = "stock"
)

// warehouse columns.
const (
	wID = iota
	wName
	wStreet1
	wStreet2
	wCity
	wState
	wZip
	wTax
	wYTD
)

// district columns.
const (
	dWID = iota
	dID
	dName
	dStreet1
	dStreet2
	dCity
	dState
	dZip
	dTax
	dYTD
	dNextOID
)

// customer columns.
const (
	cWID = iota
	cDID
	cID
	cFirst
	cMiddle
	cLast
	cStreet1
	cStreet2
	cCity
	cState
	cZip
	cPhone
	cSince
	cCredit
	cCreditLim
	cDiscount
	cBalance
	cYTDPayment
	cPaymentCnt
	cDeliveryCnt
	cData
)

// history columns: h_id is a generated key (the specification's history has none).
const (
	hID = iota
	hCID
	hCDID
	hCWID
	hDID
	hWID
	hDate
	hAmount
	hData
)

// new_order columns.
const (
	noWID = iota
	noDID
	noOID
)

// orders columns.
const (
	oWID = iota
	oDID
	oID
	oCID
	oEntryD
	oCarrierID
	oOLCnt
	oAllLocal
)

// order_line columns.
const (
	olWID = iota
	olDID
	olOID
	olNumber
	olIID
	olSupplyWID
	olDeliveryD
	olQuantity
	olAmount
	olDistInfo
)

// item columns.
const (
	iID = iota
	iImID
	iName
	iPrice
	iData
)

// stock columns.
const (
	sWID = iota
	sIID
	sQuantity
	sDist01    // s_dist_01 .. s_dist_10 follow
	sYTD       = sDist01 + 10
	sOrderCnt  = sYTD + 1
	sRemoteCnt = sYTD + 2
	sData      = sYTD + 3
)

func i32(name string) table.Column { return table.Column{Name: name, Type: table.Int32, NotNull: true} }
func i64(name string) table.Column { return table.Column{Name: name, Type: table.Int64, NotNull: true} }
func ts(name string) table.Column {
	return table.Column{Name: name, Type: table.Timestamp, NotNull: true}
}

// str is a VARCHAR(n) column; fixed a CHAR(n) one.
func str(name string, n int) table.Column {
	return table.Column{Name: name, Type: table.Bytes, MaxLen: n, Text: true, NotNull: true}
}
func fixed(name string, n int) table.Column {
	return table.Column{Name: name, Type: table.Bytes, MaxLen: n, Text: true, Fixed: true, NotNull: true}
}

// address returns the street_1, street_2, city, state and zip columns with prefix p.
func address(p string) []table.Column {
	return []table.Column{str(p+"street_1", 20), str(p+"street_2", 20), str(p+"city", 20), fixed(p+"state", 2), fixed(p+"zip", 9)}
}

func cols(groups ...[]table.Column) []table.Column {
	var out []table.Column
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func one(c ...table.Column) []table.Column { return c }

var (
	warehouseTable = &table.Table{Name: Warehouse, Columns: cols(one(i32("w_id"), str("w_name", 10)), address("w_"),
		one(i32("w_tax"), i64("w_ytd")))}

	districtTable = &table.Table{Name: District, KeyLen: 2, Columns: cols(one(i32("d_w_id"), i32("d_id"), str("d_name", 10)),
		address("d_"), one(i32("d_tax"), i64("d_ytd"), i32("d_next_o_id")))}

	// customerTable's index is the specification's access by last name (go-tpc's idx_customer):
	// Payment and Order-Status read the customers of a district with a last name in first-name
	// order.
	customerTable = &table.Table{Name: Customer, KeyLen: 3, Columns: cols(
		one(i32("c_w_id"), i32("c_d_id"), i32("c_id"), str("c_first", 16), fixed("c_middle", 2), str("c_last", 16)),
		address("c_"),
		one(fixed("c_phone", 16), ts("c_since"), fixed("c_credit", 2), i64("c_credit_lim"), i32("c_discount"),
			i64("c_balance"), i64("c_ytd_payment"), i32("c_payment_cnt"), i32("c_delivery_cnt"), str("c_data", 500))),
		Indexes: []table.Index{{Name: "idx_customer", SQLName: "idx_customer", Columns: []int{cWID, cDID, cLast, cFirst}}}}

	// historyTable has go-tpc's two indexes, which no transaction reads (they cost Payment's
	// insert two index entries, as with go-tpc).
	historyTable = &table.Table{Name: History, Columns: []table.Column{
		{Name: "h_id", Type: table.Int64, NotNull: true, AutoIncrement: true},
		i32("h_c_id"), i32("h_c_d_id"), i32("h_c_w_id"), i32("h_d_id"), i32("h_w_id"), ts("h_date"), i64("h_amount"), str("h_data", 24)},
		Indexes: []table.Index{{Name: "idx_h_w_id", SQLName: "idx_h_w_id", Columns: []int{hWID}},
			{Name: "idx_h_c_w_id", SQLName: "idx_h_c_w_id", Columns: []int{hCWID}}}}

	newOrderTable = &table.Table{Name: NewOrder, KeyLen: 3, Columns: []table.Column{i32("no_w_id"), i32("no_d_id"), i32("no_o_id")}}

	// ordersTable's index finds a customer's latest order (Order-Status), as go-tpc's
	// idx_order (o_w_id, o_d_id, o_c_id, o_id) does.
	ordersTable = &table.Table{Name: Orders, KeyLen: 3, Columns: []table.Column{
		i32("o_w_id"), i32("o_d_id"), i32("o_id"), i32("o_c_id"), ts("o_entry_d"), i32("o_carrier_id"), i32("o_ol_cnt"), i32("o_all_local")},
		Indexes: []table.Index{{Name: "idx_order", SQLName: "idx_order", Columns: []int{oWID, oDID, oCID, oID}}}}

	orderLineTable = &table.Table{Name: OrderLine, KeyLen: 4, Columns: []table.Column{
		i32("ol_w_id"), i32("ol_d_id"), i32("ol_o_id"), i32("ol_number"), i32("ol_i_id"), i32("ol_supply_w_id"),
		ts("ol_delivery_d"), i32("ol_quantity"), i64("ol_amount"), fixed("ol_dist_info", 24)}}

	itemTable = &table.Table{Name: Item, Columns: []table.Column{i32("i_id"), i32("i_im_id"), str("i_name", 24), i64("i_price"), str("i_data", 50)}}

	stockTable = &table.Table{Name: Stock, KeyLen: 2, Columns: cols(one(i32("s_w_id"), i32("s_i_id"), i32("s_quantity")),
		one(fixed("s_dist_01", 24), fixed("s_dist_02", 24), fixed("s_dist_03", 24), fixed("s_dist_04", 24), fixed("s_dist_05", 24),
			fixed("s_dist_06", 24), fixed("s_dist_07", 24), fixed("s_dist_08", 24), fixed("s_dist_09", 24), fixed("s_dist_10", 24)),
		one(i64("s_ytd"), i32("s_order_cnt"), i32("s_remote_cnt"), str("s_data", 50)))}
)

// tables are the nine tables in the order they are created and loaded.
var tables = []*table.Table{itemTable, warehouseTable, districtTable, customerTable, historyTable, ordersTable, newOrderTable, orderLineTable, stockTable}

// openTables creates the nine tables with their indexes (go-tpc creates them before its load).
func openTables(ctx context.Context, eng table.Engine) error {
	for _, t := range tables {
		if err := eng.CreateTable(ctx, t, true); err != nil {
			return err
		}
	}
	return nil
}
