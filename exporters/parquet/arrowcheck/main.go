// Command arrowcheck reads Parquet files with Apache Arrow Go, a reader
// independent of the parquet-go library that writes them, and prints every
// row as one JSON object per line (column name → value; null as null), so
// the exporter's tests can compare the values with the trace. It is a
// separate module so that the main module does not depend on Arrow; the
// tests run it with `go run` and skip when it cannot be built.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: arrowcheck FILE.parquet")
		os.Exit(2)
	}
	if err := dump(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "arrowcheck:", err)
		os.Exit(1)
	}
}

func dump(path string) error {
	rd, err := file.OpenParquetFile(path, false)
	if err != nil {
		return err
	}
	defer rd.Close()
	meta := map[string]string{}
	kv := rd.MetaData().KeyValueMetadata()
	for i, k := range kv.Keys() {
		meta[k] = kv.Values()[i]
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(map[string]any{"metadata": meta, "rows": rd.NumRows()}); err != nil {
		return err
	}
	fr, err := pqarrow.NewFileReader(rd, pqarrow.ArrowReadProperties{BatchSize: 4096}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.Record()
		sch := rec.Schema()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make(map[string]any, rec.NumCols())
			for c := 0; c < int(rec.NumCols()); c++ {
				col := rec.Column(c)
				name := sch.Field(c).Name
				if col.IsNull(i) {
					row[name] = nil
					continue
				}
				switch a := col.(type) {
				case *array.Uint32:
					row[name] = a.Value(i)
				case *array.Uint64:
					row[name] = a.Value(i)
				case *array.Int32:
					row[name] = a.Value(i)
				case *array.Int64:
					row[name] = a.Value(i)
				case *array.Float64:
					row[name] = a.Value(i)
				case *array.String:
					row[name] = a.Value(i)
				case *array.Dictionary:
					row[name] = a.Dictionary().(*array.String).Value(a.GetValueIndex(i))
				default:
					return fmt.Errorf("column %s: unexpected Arrow type %s", name, col.DataType())
				}
			}
			if err := enc.Encode(row); err != nil {
				return err
			}
		}
	}
	return rr.Err()
}
