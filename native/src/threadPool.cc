#include "threadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace clawloop {
namespace {

struct Pool {
  std::vector<std::thread> workers;
  std::mutex mu;
  std::condition_variable wake, done;
  const std::function<void(size_t, size_t)>* job = nullptr;
  size_t n = 0, chunks = 0;
  std::atomic<size_t> next{0};
  size_t finished = 0;
  uint64_t generation = 0;
  bool stop = false;

  void runChunks() {
    for (;;) {
      size_t c = next.fetch_add(1);
      if (c >= chunks) break;
      size_t begin = n * c / chunks, end = n * (c + 1) / chunks;
      if (begin < end) (*job)(begin, end);
    }
  }

  void worker() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      wake.wait(lock, [&] { return stop || generation != seen; });
      if (stop) return;
      seen = generation;
      lock.unlock();
      runChunks();
      lock.lock();
      if (++finished == workers.size()) done.notify_one();
    }
  }

  void resize(int threads) {
    shutdown();
    stop = false;
    for (int i = 1; i < threads; i++) workers.emplace_back([this] { worker(); });
  }

  void shutdown() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    wake.notify_all();
    for (auto& t : workers) t.join();
    workers.clear();
  }

  ~Pool() { shutdown(); }
};

Pool& pool() {
  static Pool p;
  return p;
}
int threads = 1;
std::mutex runMu;  // one parallelFor at a time (JS calls in from one thread per pool user)

}  // namespace

void setPoolThreads(int n) {
  std::lock_guard<std::mutex> guard(runMu);
  threads = std::max(1, n);
  pool().resize(threads);
}

int poolThreads() { return threads; }

void parallelFor(size_t n, size_t grain, const std::function<void(size_t, size_t)>& fn, size_t chunksPerThread) {
  if (n == 0) return;
  size_t want = std::min<size_t>(threads, std::max<size_t>(1, n / std::max<size_t>(grain, 1)));
  if (want <= 1) {
    fn(0, n);
    return;
  }
  std::lock_guard<std::mutex> guard(runMu);
  Pool& p = pool();
  {
    std::lock_guard<std::mutex> lock(p.mu);
    p.job = &fn;
    p.n = n;
    p.chunks = std::min(n, want * std::max<size_t>(chunksPerThread, 1));
    p.next = 0;
    p.finished = 0;
    p.generation++;
  }
  p.wake.notify_all();
  p.runChunks();
  std::unique_lock<std::mutex> lock(p.mu);
  p.done.wait(lock, [&] { return p.finished == p.workers.size(); });
  p.job = nullptr;
}

}  // namespace clawloop
