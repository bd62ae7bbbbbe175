# Blast Radius probe for Ruby runtimes (MRI / CRuby, JRuby). Ruby 2.6 syntax (JRuby 9.3).
#
# Runs the probe workloads (probes/README.md) and prints one JSON document in the common probe
# schema; scripts/probe.sh runs it and adds the machine facts:
#
#     ruby probes/ruby/probe.rb [--quick] [--runtime ruby|jruby]
#
# Every workload is the same loop, generated with `eval` so each call is a real call site with
# its own inline cache:
#
#     i = 0
#     while i < n
#       <write> if i % period == 0          # nothing for the baseline
#       acc += <receiver>.<method>(i)
#       i += 1
#     end
#
# A write defines a method on a class (`define_method`). CRuby 3.1 then invalidates the cached
# method entries for that method id in the class and its subclasses (vm_method.c,
# rb_clear_method_cache -> clear_method_cache_by_id_in_class), which call sites check through
# their callable method entry; JRuby flips the class's invalidator (a SwitchPoint) and those of
# its subclasses (RubyModule#invalidateCacheDescendants), so indy call sites relink.

require 'json'

PERIOD = 1000 # iterations between writes, as in ScopedInvalidationBench
BURST = 50 # writes before the steady loop in `burst_then_steady`
ROUNDS = 3 # passes over the workloads (see `measure`)
LOW_WIDE = 0.1 # the fastest quarter of reps spread wider than this: the minimum is not readable
DENSITIES = [10, 100, 1000, 10_000].freeze
SITE_COUNTS = [1, 8, 64].freeze
DYN = proc { |_i| 0 }

$world_id = 0

# Fresh classes for each workload (under a new module), so writes cannot leak between them.
def world
  $world_id += 1
  mod = Module.new
  Object.const_set("ProbeWorld#{$world_id}", mod)
  mod.module_eval <<~RUBY, __FILE__, __LINE__ + 1
    class Hot; def compute(i); i & 1; end; end
    class Unrelated; end
    class Parent; def base(i); i & 2; end; end
    class Child < Parent; def leaf(i); i & 3; end; end
  RUBY
  mod
end

# The op: `n` iterations of `calls` (source expressions), `write` every `period` iterations.
def loop_op(mod, n, period, write, calls, receivers)
  body = calls.map { |c| "      acc += #{c}" }.join("\n")
  src = <<~RUBY
    lambda do
      acc = 0
      i = 0
      while i < #{n}
        if i % #{period} == 0
          acc += 1 # so a JIT (JRuby) keeps the period check in a write-free baseline too
          #{write}
        end
    #{body}
        i += 1
      end
      acc
    end
  RUBY
  b = binding
  receivers.each_with_index { |o, k| b.local_variable_set(:"o#{k}", o) }
  b.local_variable_set(:mod, mod)
  b.local_variable_set(:dyn, DYN)
  eval(src, b)
end

def write_on(cls)
  "mod::#{cls}.define_method(:dyn0, &dyn)"
end

def workload(n, period: PERIOD, write: 'nil', receiver: 'Hot', method: 'compute')
  mod = world
  loop_op(mod, n, period, write, ["o0.#{method}(i)"], [mod.const_get(receiver).new])
end

# `sites` call sites on as many classes, with `write` every PERIOD iterations.
def hot_sites(n, sites, write)
  mod = world
  receivers = (0...sites).map do |k|
    Class.new { define_method(:m) { |i| (i + k) & 1 } }.new
  end
  loop_op(mod, n / sites, PERIOD, write, (0...sites).map { |k| "o#{k}.m(i)" }, receivers)
end

# The fanout workload (probes/workloads.json): `sites` subclasses of Root, each with its own
# method m and one call site, and `write` (a class name, or nil) every `period` iterations.
def fanout(n, sites, period, write)
  mod = world
  root = Class.new { define_method(:base) { |i| i & 2 } }
  mod.const_set(:Root, root)
  mod.const_set(:Other, Class.new)
  receivers = (0...sites).map do |k|
    leaf = Class.new(root) { define_method(:m) { |i| (i + k) & 1 } }
    mod.const_set(:"L#{k}", leaf)
    leaf.new
  end
  loop_op(mod, n / sites, period, write ? write_on(write) : 'nil', (0...sites).map { |k| "o#{k}.m(i)" }, receivers)
end

# [workload, param, iterations, op] of every fanout row, in the shared definition's order.
def fanout_plan(n)
  spec = JSON.parse(File.read(File.join(__dir__, '..', 'workloads.json')))['fanout']
  spec['sites'].flat_map do |sites|
    spec['rows'].map { |r| [r['workload'], sites, (n / sites) * sites, fanout(n, sites, spec['period'], r['write'])] }
  end
end

def burst_then_steady(n)
  mod = world
  BURST.times { |k| mod::Unrelated.define_method(:"dyn#{k}", &DYN) }
  loop_op(mod, n, PERIOD, 'nil', ['o0.compute(i)'], [mod::Hot.new])
end

def now_ns
  Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
end

# Times of `reps` runs of each op, taken in ROUNDS passes over the workloads. Within a pass each
# workload runs its warm-up and then its timed reps back to back, so no other workload's write
# lands between them (on a runtime with a global scope that would be crosstalk, not the
# workload's own cost); the passes spread a slow spell of a shared machine over every workload.
def measure(ops, reps, warmup)
  times = ops.map { [] }
  ROUNDS.times do |r|
    share = reps / ROUNDS + (r < reps % ROUNDS ? 1 : 0)
    ops.each_with_index do |op, k|
      warmup.times { op.call }
      share.times do
        t0 = now_ns
        op.call
        times[k] << now_ns - t0
      end
    end
  end
  times.map(&:sort)
end

def quantile(values, q)
  k = (values.length - 1) * q
  lo = k.floor
  hi = [lo + 1, values.length - 1].min
  values[lo] + (values[hi] - values[lo]) * (k - lo)
end

def row(name, param, iterations, t, reps, warmup)
  median = quantile(t, 0.5)
  iqr = median.zero? ? 0.0 : (quantile(t, 0.75) - quantile(t, 0.25)) / median.to_f
  low = t.first.zero? ? 0.0 : (quantile(t, 0.25) - t.first) / t.first.to_f
  { workload: name, param: param, iterations: iterations, reps: reps, warmup: warmup,
    min_ns: t.first, median_ns: median, max_ns: t.last, iqr_rel: iqr.round(4), wide: iqr > 0.25,
    low_rel: low.round(4), low_wide: low > LOW_WIDE }
end

quick = ARGV.include?('--quick')
runtime = ARGV.include?('--runtime') ? ARGV[ARGV.index('--runtime') + 1] : (RUBY_ENGINE == 'jruby' ? 'jruby' : 'ruby')
# Short ops and many reps: on a shared machine a short op often runs undisturbed, and the
# fingerprint reads each row's fastest rep.
n = quick ? 20_000 : 40_000
reps, warmup = quick ? [15, 3] : [101, 5]
warmup *= 4 if RUBY_ENGINE == 'jruby' # the JVM compiles the loop after some thousands of calls
plan = [
  ['baseline', nil, n, workload(n)],
  ['unrelated_churn', PERIOD, n, workload(n, write: write_on('Unrelated'))],
  ['same_class_churn', PERIOD, n, workload(n, write: write_on('Hot'))],
  ['parent_churn', PERIOD, n, workload(n, write: write_on('Parent'), receiver: 'Child', method: 'base')],
  ['burst_then_steady', BURST, n, burst_then_steady(n)]
]
DENSITIES.each { |period| plan << ['density', period, n, workload(n, period: period, write: write_on('Hot'))] }
SITE_COUNTS.each do |sites|
  iterations = (n / sites) * sites
  plan << ['hot_sites_baseline', sites, iterations, hot_sites(n, sites, 'nil')]
  plan << ['hot_sites', sites, iterations, hot_sites(n, sites, write_on('Unrelated'))]
end
plan.concat(fanout_plan(n))
times = measure(plan.map(&:last), reps, warmup)
version = RUBY_ENGINE == 'jruby' ? "JRuby #{JRUBY_VERSION} (Ruby #{RUBY_VERSION}, JVM #{ENV_JAVA['java.version']})" : "Ruby #{RUBY_VERSION}p#{RUBY_PATCHLEVEL} (#{RUBY_ENGINE})"
doc = {
  schema: 'blast-radius-probe/1',
  runtime: runtime,
  version: version,
  command: ([RbConfig.ruby] + [$PROGRAM_NAME] + ARGV).join(' '),
  mode: quick ? 'quick' : 'full',
  rows: plan.each_with_index.map { |(name, param, iterations, _), k| row(name, param, iterations, times[k], reps, warmup) }
}
puts JSON.pretty_generate(doc)
