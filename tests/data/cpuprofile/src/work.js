// A small CPU-bound program for `node --cpu-prof`: recursion, closures and
// anonymous functions, so the profile has named, anonymous and recursive
// frames. See ../README for how work.cpuprofile was made.
'use strict';

function fib(n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

function makeCounter(step) {
  let total = 0;
  return function count(limit) {     // a named closure
    for (let i = 0; i < limit; i++)
      total = (total + i * step) % 1000003;
    return total;
  };
}

const hash = (s) => {                // an arrow function, named by its const
  let h = 0;
  for (let k = 0; k < 2000; k++)
    for (let i = 0; i < s.length; i++)
      h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
};

function sortMany(n) {
  const a = [];
  for (let i = 0; i < n; i++)
    a.push((i * 7919) % 10007);
  return a.sort(function (x, y) { return x - y; });   // anonymous
}

const deadline = Date.now() + 600;
const counter = makeCounter(3);
let sink = 0;
while (Date.now() < deadline) {
  sink += fib(20);
  sink += counter(20000);
  sink += hash('tflame flame graph');
  sink += sortMany(2000)[17];
  [1, 2, 3].forEach(function () { sink += fib(12); });  // anonymous
}
if (sink === 42) console.log(sink);
