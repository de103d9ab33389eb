package storetest

import (
	"fmt"
	"strings"

	"github.com/leaselab/playground/classroom/internal/sqlstore"
)

// rebind writes the ? placeholders of a raw query as d's: $1, $2, ... on
// PostgreSQL. The upgrade tests write rows as an older store did.
func rebind(d *sqlstore.Dialect, query string) string {
	if !d.Dollar {
		return query
	}
	for i := 1; strings.Contains(query, "?"); i++ {
		query = strings.Replace(query, "?", fmt.Sprintf("$%d", i), 1)
	}
	return query
}
