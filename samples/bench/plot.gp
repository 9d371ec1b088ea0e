# plot.gp - draws xio-bench's results.csv: for each of create / grow / zero, the time
# against the size, log-log, one line per init policy and backend (colour: policy;
# solid line and filled points: page blob; dashed line and filled squares: local
# file). Extrapolated zero-write times are hollow points on a dotted line, drawn
# from the measured point at the zero cap. Also the bulk throughput by requests in
# flight. Each plot is written as PNG and SVG.
#
# Run by xio-bench (plot.c):
#   gnuplot -e "csv='DIR/results.csv'; outdir='DIR'; cap=BYTES; have_growth=1; have_bulk=1" plot.gp

if (!exists("csv")) csv = "results.csv"
if (!exists("outdir")) outdir = "."
if (!exists("cap")) cap = 1073741824
if (!exists("have_growth")) have_growth = 1
if (!exists("have_bulk")) have_bulk = 1

# pngcairo draws better; plain png (libgd) is what some gnuplot builds have.
png_term = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? "pngcairo" : "png"

set datafile separator ","
set datafile missing ""
set key autotitle columnhead

# results.csv columns
C_KIND = 1; C_BACKEND = 2; C_OP = 3; C_POLICY = 4; C_SIZE = 5; C_DEPTH = 8
C_MEDIAN = 11; C_EXTRAP = 15; C_STATUS = 16; C_MIBS = 17

# The median time of growth rows of backend b, op o, policy p: measured rows (e = 0),
# or the extrapolated ones with the measured point at the cap they start from (e = 1).
ok(b, o, p) = strcol(C_KIND) eq "growth" && strcol(C_BACKEND) eq b && strcol(C_OP) eq o && \
              strcol(C_POLICY) eq p && strcol(C_STATUS) eq "ok"
measured(b, o, p) = ok(b, o, p) && column(C_EXTRAP) == 0 ? column(C_MEDIAN) : NaN
extrap(b, o, p) = ok(b, o, p) && (column(C_EXTRAP) == 1 || column(C_SIZE) == cap) ? column(C_MEDIAN) : NaN
bulk(op) = strcol(C_KIND) eq "bulk" && strcol(C_OP) eq op && strcol(C_STATUS) eq "ok" ? column(C_MIBS) : NaN

# Colours by policy, line styles by backend.
set style line 1 lc rgb "#1b9e77" lw 2 pt 7 ps 1.2 dt 1   # page blob, none
set style line 2 lc rgb "#d95f02" lw 2 pt 7 ps 1.2 dt 1   # page blob, zero
set style line 3 lc rgb "#2b6cb0" lw 2 pt 7 ps 1.2 dt 1   # page blob, clear
set style line 4 lc rgb "#1b9e77" lw 2 pt 5 ps 1.1 dt 2   # local, none
set style line 5 lc rgb "#d95f02" lw 2 pt 5 ps 1.1 dt 2   # local, zero
set style line 6 lc rgb "#2b6cb0" lw 2 pt 5 ps 1.1 dt 2   # local, clear
set style line 7 lc rgb "#d95f02" lw 1.5 pt 6 ps 1.4 dt 3 # page blob, zero, extrapolated
set style line 8 lc rgb "#d95f02" lw 1.5 pt 4 ps 1.3 dt 3 # local, zero, extrapolated

set logscale xy
set grid xtics ytics lc rgb "#dddddd"
set xlabel "size (bytes, log scale)"
set ylabel "time per operation (median, log scale)"
set xtics ("64 KiB" 2**16, "1 MiB" 2**20, "4 MiB" 2**22, "16 MiB" 2**24, "64 MiB" 2**26, \
           "256 MiB" 2**28, "1 GiB" 2**30, "4 GiB" 2**32, "16 GiB" 2**34, "64 GiB" 2**36, \
           "256 GiB" 2**38, "1 TiB" 2**40, "4 TiB" 2**42)
set ytics ("1 us" 1e-6, "10 us" 1e-5, "100 us" 1e-4, "1 ms" 1e-3, "10 ms" 1e-2, \
           "100 ms" 0.1, "1 s" 1, "10 s" 10, "1 min" 60, "10 min" 600, "1 h" 3600, \
           "10 h" 36000, "4 days" 345600)
set key top left box opaque font ",9" spacing 1.1
set autoscale xfix
set autoscale yfix
set offsets graph 0.05, graph 0.05, graph 0.1, graph 0.05

titles = "create grow zero"
sub_create = "create a file of SIZE: xio\\_file\\_open(CREATE\\_ONLY, size, init)"
sub_grow = "grow an 8 MiB file by SIZE: xio\\_file\\_set\\_size(8 MiB + SIZE, init)"
sub_zero = "zero SIZE of an existing file: xio\\_file\\_zero(0, SIZE, init)"
caveat = "page blob = Azurite, an in-memory emulator on loopback (not Azure); hollow points on dotted lines = extrapolated zero-writes"

do for [t = 1:2] {
  if (t == 1) { set terminal png_term size 1100,720 enhanced font ",11"; ext = "png" }
  if (t == 2) { set terminal svg size 1100,720 enhanced font "sans,12" background rgb "white"; ext = "svg" }
  if (have_growth) {
    do for [o in titles] {
      sub = o eq "create" ? sub_create : o eq "grow" ? sub_grow : sub_zero
      set output sprintf("%s/growth-%s.%s", outdir, o, ext)
      set title sprintf("{/:Bold Time to %s by init policy}\n{/*0.8 %s}\n{/*0.75 %s}", \
                        o eq "zero" ? "zero a range" : o eq "grow" ? "grow a file" : "create a file", sub, caveat)
      if (o eq "zero") {
        plot csv using (column(C_SIZE)):(measured("pageblob", o, "zero")) with linespoints ls 2 title "page blob, zero (write zeros)", \
             ''  using (column(C_SIZE)):(extrap("pageblob", o, "zero")) with linespoints ls 7 title "page blob, zero (extrapolated)", \
             ''  using (column(C_SIZE)):(measured("pageblob", o, "clear")) with linespoints ls 3 title "page blob, clear (Put Page clear)", \
             ''  using (column(C_SIZE)):(measured("local", o, "zero")) with linespoints ls 5 title "local, zero (write zeros)", \
             ''  using (column(C_SIZE)):(extrap("local", o, "zero")) with linespoints ls 8 title "local, zero (extrapolated)", \
             ''  using (column(C_SIZE)):(measured("local", o, "clear")) with linespoints ls 6 title "local, clear (FALLOC\\_FL\\_ZERO\\_RANGE)"
      } else {
        plot csv using (column(C_SIZE)):(measured("pageblob", o, "none")) with linespoints ls 1 title "page blob, none (instant init)", \
             ''  using (column(C_SIZE)):(measured("pageblob", o, "zero")) with linespoints ls 2 title "page blob, zero (write zeros)", \
             ''  using (column(C_SIZE)):(extrap("pageblob", o, "zero")) with linespoints ls 7 title "page blob, zero (extrapolated)", \
             ''  using (column(C_SIZE)):(measured("pageblob", o, "clear")) with linespoints ls 3 title "page blob, clear (Put Page clear)", \
             ''  using (column(C_SIZE)):(measured("local", o, "none")) with linespoints ls 4 title "local, none (ftruncate)", \
             ''  using (column(C_SIZE)):(measured("local", o, "zero")) with linespoints ls 5 title "local, zero (write zeros)", \
             ''  using (column(C_SIZE)):(extrap("local", o, "zero")) with linespoints ls 8 title "local, zero (extrapolated)", \
             ''  using (column(C_SIZE)):(measured("local", o, "clear")) with linespoints ls 6 title "local, clear (FALLOC\\_FL\\_ZERO\\_RANGE)"
      }
      set output
    }
  }
  if (have_bulk) {
    set output sprintf("%s/bulk.%s", outdir, ext)
    set title "{/:Bold Bulk throughput through xio by requests in flight (4 MiB requests)}\n{/*0.75 page blob on Azurite, an in-memory emulator on loopback (not Azure)}"
    unset logscale y
    set logscale x 2
    set xtics auto
    set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256)
    set ytics auto
    set yrange [0:*]
    set xlabel "requests in flight (xio\\_file\\_submit; context max\\_in\\_flight)"
    set ylabel "throughput (MiB/s)"
    plot csv using (column(C_DEPTH)):(bulk("write")) with linespoints ls 2 title "write", \
         ''  using (column(C_DEPTH)):(bulk("read")) with linespoints ls 3 title "read"
    set output
    # back to the growth plots' axes for the next terminal
    set logscale xy
    set autoscale yfix
    set yrange [*:*]
    set xlabel "size (bytes, log scale)"
    set ylabel "time per operation (median, log scale)"
    set xtics ("64 KiB" 2**16, "1 MiB" 2**20, "4 MiB" 2**22, "16 MiB" 2**24, "64 MiB" 2**26, \
               "256 MiB" 2**28, "1 GiB" 2**30, "4 GiB" 2**32, "16 GiB" 2**34, "64 GiB" 2**36, \
               "256 GiB" 2**38, "1 TiB" 2**40, "4 TiB" 2**42)
    set ytics ("1 us" 1e-6, "10 us" 1e-5, "100 us" 1e-4, "1 ms" 1e-3, "10 ms" 1e-2, \
               "100 ms" 0.1, "1 s" 1, "10 s" 10, "1 min" 60, "10 min" 600, "1 h" 3600, \
               "10 h" 36000, "4 days" 345600)
  }
}
