// cxx.cpp: C++ whose frames have mangled names: a namespace, a class
// template with operator overloads, a lambda, and std::sort with a
// comparator (about half a second).
#include <algorithm>
#include <cstdio>
#include <unistd.h>
#include <vector>

#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif

namespace geo {

template <typename T, int N>
class Vec {
public:
	T v[N];

	NOINLINE Vec operator+(const Vec &o) const
	{
		Vec r;
		for (int i = 0; i < N; i++)
			r.v[i] = v[i] + o.v[i];
		return r;
	}
	NOINLINE T operator*(const Vec &o) const // dot product
	{
		T s = 0;
		for (int i = 0; i < N; i++)
			s += v[i] * o.v[i];
		return s;
	}
	bool operator<(const Vec &o) const { return v[0] < o.v[0]; }
};

class Cloud {
public:
	explicit Cloud(unsigned n) : pts(n)
	{
		unsigned x = 12345;
		for (auto &p : pts)
			for (auto &c : p.v) {
				x = x * 1103515245u + 12345u;
				c = (double)(x >> 8 & 0xffff) / 65536.0;
			}
	}
	NOINLINE double energy() const;
	NOINLINE void order_by_norm();

private:
	std::vector<Vec<double, 4>> pts;
};

double Cloud::energy() const
{
	double e = 0;
	for (size_t i = 1; i < pts.size(); i++)
		e += (pts[i] + pts[i - 1]) * pts[i];
	return e;
}

void Cloud::order_by_norm()
{
	auto by_norm = [](const Vec<double, 4> &a, const Vec<double, 4> &b) {
		return a * a < b * b;
	};
	std::sort(pts.begin(), pts.end(), by_norm);
	std::reverse(pts.begin(), pts.end());
}

} // namespace geo

int main()
{
	double total = 0;
	for (int round = 0; round < 150; round++) {
		geo::Cloud c(20000 + round);
		c.order_by_norm();
		total += c.energy();
	}
	std::printf("%s", total < 0 ? "impossible\n" : "");
	/* no exit handlers: a sample in them (_fini) unwinds in perf's
	 * libunwind as [[stack]] and fully in tflame's elfutils, as in
	 * ld.so's start-up, which the recordings leave out (perf record -D) */
	std::fflush(stdout);
	_exit(0);
}
