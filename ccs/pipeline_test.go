package ccs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"rankd"
	"rankd/ccs"
)

// describe is an event as text, its objects included, for comparing two readings.
func describe(ev *rankd.Event, line int, err error) string {
	s := fmt.Sprintf("%d %v", line, err)
	if err == nil {
		v := reflect.ValueOf(*ev)
		for i := range v.NumField() {
			f := v.Field(i)
			if f.Kind() == reflect.Pointer && !f.IsNil() {
				s += fmt.Sprintf(" %+v", f.Elem().Interface())
			} else if f.Kind() != reflect.Pointer {
				s += fmt.Sprintf(" %v", f.Interface())
			}
		}
	}
	return s
}

// The pipeline hands out exactly what the reader does, line numbers, errors and skips included.
func TestPipelineEqualsReader(t *testing.T) {
	for _, name := range feeds {
		t.Run(name, func(t *testing.T) {
			data := MustReadFeed(t, name)
			// A few broken lines too.
			data = append(append([]byte("not json\n"), data...), "{\"type\":\"teams\"}\n"...)
			var want []string
			rd := ccs.NewReader(bytes.NewReader(data))
			for {
				ev, err := rd.Next()
				if err == io.EOF {
					break
				}
				want = append(want, describe(&ev, rd.Line(), err))
			}
			var got []string
			skipped, err := ccs.Pipeline(context.Background(), bytes.NewReader(data), func(ev *rankd.Event, line int, err error) error {
				got = append(got, describe(ev, line, err))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("got %d events, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("event %d: got %s, want %s", i, got[i], want[i])
				}
			}
			if !reflect.DeepEqual(skipped, rd.Skipped()) {
				t.Errorf("skipped: got %v, want %v", skipped, rd.Skipped())
			}
		})
	}
}

func TestPipelineStopsAtError(t *testing.T) {
	data := MustReadFeed(t, "wf47")
	stop := errors.New("stop")
	n := 0
	_, err := ccs.Pipeline(context.Background(), bytes.NewReader(data), func(*rankd.Event, int, error) error {
		if n++; n == 5000 {
			return stop
		}
		return nil
	})
	if err != stop || n != 5000 {
		t.Errorf("got %v after %d events, want the error of the 5000th", err, n)
	}
}

// Pipeline returns at fn's first error, though the feed is a pipe that sends nothing more for now (its
// reader blocked, reading the next batch).
func TestPipelineStopsWithoutTheFeed(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() {
		// More than a batch, so that the first goes to fn; then nothing, for as long as the test runs.
		for i := range 5000 {
			if _, err := fmt.Fprintf(pw, `{"type":"teams","id":"t%d","data":{"id":"t%d","name":"T"}}`+"\n", i, i); err != nil {
				return
			}
		}
	}()
	stop := errors.New("stop")
	done := make(chan error, 1)
	go func() {
		_, err := ccs.Pipeline(context.Background(), pr, func(*rankd.Event, int, error) error { return stop })
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, stop) {
			t.Errorf("got %v, want %v", err, stop)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Pipeline did not return after fn's error")
	}
}

// Pipeline returns when its context is done, though the feed sends nothing more and fn is waiting for it.
func TestPipelineCancelled(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ccs.Pipeline(ctx, pr, func(*rankd.Event, int, error) error { return nil })
		done <- err
	}()
	_, _ = io.WriteString(pw, `{"type":"teams","id":"t1","data":{"id":"t1","name":"T"}}`+"\n")
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want %v", err, context.Canceled)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Pipeline did not return when its context was done")
	}
}
