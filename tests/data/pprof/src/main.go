// Command pprofdemo writes the pprof fixtures of tests/data/pprof: a CPU
// profile (CPU-bound work with small functions the compiler inlines, under
// pprof labels) and heap/allocs profiles (allocations of several sizes).
// Run: go run . OUTDIR   (see ../README)
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"
)

// mix and step are small enough to be inlined into their callers.
func mix(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

func step(x uint64) uint64 { return mix(x) ^ (x >> 17) }

//go:noinline
func hashLoop(n int) uint64 {
	var x uint64 = 1
	for i := 0; i < n; i++ {
		x = step(x)
	}
	return x
}

//go:noinline
func sieve(n int) int {
	composite := make([]bool, n)
	count := 0
	for i := 2; i < n; i++ {
		if !composite[i] {
			count++
			for j := i * i; j < n; j += i {
				composite[j] = true
			}
		}
	}
	return count
}

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

//go:noinline
func cpuWork(deadline time.Time) uint64 {
	var sink uint64
	for time.Now().Before(deadline) {
		sink += hashLoop(200000)
		sink += uint64(sieve(100000))
		sink += uint64(fib(22))
	}
	return sink
}

var keep [][]byte

//go:noinline
func allocSmall(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 64))
	}
}

//go:noinline
func allocLarge(n int) {
	for i := 0; i < n; i++ {
		b := make([]byte, 256<<10)
		if i%4 == 0 {
			keep = append(keep, b)
		}
	}
}

func main() {
	out := "."
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	runtime.MemProfileRate = 4096
	f, err := os.Create(filepath.Join(out, "cpu.pb.gz"))
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	var sink uint64
	for _, w := range []string{"parser", "indexer"} {
		pprof.Do(context.Background(), pprof.Labels("worker", w), func(context.Context) {
			sink += cpuWork(time.Now().Add(600 * time.Millisecond))
		})
	}
	pprof.StopCPUProfile()
	f.Close()

	allocSmall(20000)
	allocLarge(64)
	runtime.GC()
	for _, p := range []string{"heap", "allocs"} {
		f, err := os.Create(filepath.Join(out, p+".pb.gz"))
		if err != nil {
			panic(err)
		}
		if err := pprof.Lookup(p).WriteTo(f, 0); err != nil {
			panic(err)
		}
		f.Close()
	}
	fmt.Fprintln(os.Stderr, "sink", sink, len(keep))
}
