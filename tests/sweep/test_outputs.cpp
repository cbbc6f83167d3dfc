#include <doctest/doctest.h>
#include <png.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "fake_workload.hpp"
#include "sweep/image.hpp"
#include "sweep/plots.hpp"
#include "sweep/progress.hpp"
#include "sweep/report.hpp"

using namespace microsched;
using namespace microsched::sweep;

namespace {

timing_stats ms(double t) { return {t, t * 0.98, t * 1.03, 5}; }

point_record point(const std::string& scenario, pool_strategy strategy, std::uint64_t chunk,
                   double t) {
  point_record p;
  p.scenario = scenario;
  p.schedule.strategy = strategy;
  p.schedule.chunk = chunk;
  p.status = point_status::ok;
  p.time = ms(t);
  p.check_passed = true;
  p.check_tasks = 100;
  return p;
}

scenario_results scenario(const std::string& key, double vanilla,
                          std::vector<std::pair<std::uint64_t, double>> hybrid_times) {
  scenario_results s;
  s.baseline.scenario = key;
  s.baseline.options = {{"offset", key.substr(key.size() - 1)}};
  s.baseline.describe = "fake, with a \"quoted\", comma";
  s.baseline.tasks = 100;
  s.baseline.total_steps = 12345;
  s.baseline.vanilla = ms(vanilla);
  s.baseline.persistent = ms(vanilla * 1.2);
  s.baseline.floor = ms(1.0);
  for (const auto& [chunk, t] : hybrid_times) {
    s.points.push_back(point(key, pool_strategy::hybrid, chunk, t));
  }
  return s;
}

//! Three scenarios, four chunks: chunk 4 is never the best anywhere but the best constant.
sweep_results example() {
  sweep_results r;
  r.header = {"fake", "Fake GPU", {2, 5}, "2024-01-01T00:00:00Z"};
  r.option_names = {"offset"};
  r.scenarios.push_back(scenario("fake offset=0", 3.0, {{1, 1.30}, {4, 1.33}, {16, 1.60}, {64, 2.0}}));
  r.scenarios.push_back(scenario("fake offset=1", 2.0, {{1, 1.60}, {4, 1.24}, {16, 1.20}, {64, 1.5}}));
  r.scenarios.push_back(scenario("fake offset=2", 1.2, {{1, 1.90}, {4, 1.11}, {16, 1.20}, {64, 1.1}}));
  point_record skipped = point("fake offset=2", pool_strategy::global, 8, 0);
  skipped.status = point_status::skipped;
  skipped.reason = "blocks per SM = 12: at most 8 fit, says \"occupancy\"";
  skipped.time = {};
  skipped.check_passed = false;
  r.scenarios[2].points.push_back(skipped);
  return r;
}

}  // namespace

TEST_CASE("best constant setting across scenarios, and its loss per scenario (Fig. 7 bottom)") {
  const auto r = example();
  CHECK(best_point(r.scenarios[0]) == 0u);
  CHECK(best_point(r.scenarios[1]) == 2u);
  CHECK(best_point(r.scenarios[2]) == 3u);
  const auto c = best_constant(r);
  REQUIRE(c);
  CHECK(c->schedule.chunk == 4);
  REQUIRE(c->loss.size() == 3);
  CHECK(c->loss[0] == doctest::Approx(1.33 / 1.30 - 1));
  CHECK(c->loss[1] == doctest::Approx(1.24 / 1.20 - 1));
  CHECK(c->loss[2] == doctest::Approx(1.11 / 1.10 - 1));
  CHECK(c->worst_loss == doctest::Approx(1.24 / 1.20 - 1));
  const double geo = std::cbrt(1.33 / 1.30 * 1.24 / 1.20 * 1.11 / 1.10) - 1;
  CHECK(c->mean_loss == doctest::Approx(geo));

  // A schedule that did not run in every scenario cannot be the constant one.
  auto partial = example();
  partial.scenarios[1].points.erase(partial.scenarios[1].points.begin() + 1);  // chunk 4 gone
  const auto c2 = best_constant(partial);
  REQUIRE(c2);
  CHECK(c2->schedule.chunk != 4);

  sweep_results none;
  CHECK_FALSE(best_constant(none));

  const std::string text = summary_text(r);
  // The example's points keep the library's default fetch control.
  const std::string expected = "best constant setting across 3 scenarios: hybrid " +
                               microsched::to_string(microsched::schedule_arguments{}.fetch) +
                               " chunk=4";
  CHECK(text.find(expected) != std::string::npos);
  CHECK(text.find("skipped 1 point(s): blocks per SM = 12") != std::string::npos);
  CHECK(text.find("1.30x the floor (30.0% above it)") != std::string::npos);
}

TEST_CASE("CSV holds every point and reads back exactly") {
  const auto r = example();
  const auto rows = parse_csv(to_csv(r));
  const auto& columns = csv_fixed_columns();
  REQUIRE(rows.size() == 1 + 13);
  REQUIRE(rows[0].size() == columns.size() + 1);
  CHECK(rows[0].back() == "offset");
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), name) - rows[0].begin());
  };
  std::size_t row = 1;
  for (const auto& sc : r.scenarios) {
    for (const auto& p : sc.points) {
      const auto& f = rows[row++];
      REQUIRE(f.size() == rows[0].size());
      CHECK(f[col("scenario")] == sc.baseline.scenario);
      CHECK(f[col("status")] == to_string(p.status));
      CHECK(f[col("reason")] == p.reason);  // quotes and commas survive
      CHECK(std::stoull(f[col("chunk")]) == p.schedule.chunk);
      CHECK(f[col("strategy")] == to_string(p.schedule.strategy));
      CHECK(f[col("offset")] == sc.baseline.options.at("offset"));
      CHECK(std::stod(f[col("vanilla_ms")]) == sc.baseline.vanilla.median_ms);
      CHECK(std::stod(f[col("floor_ms")]) == sc.baseline.floor.median_ms);
      if (p.status == point_status::ok) {
        CHECK(std::stod(f[col("median_ms")]) == p.time.median_ms);  // exact, not approximate
        CHECK(std::stod(f[col("min_ms")]) == p.time.min_ms);
        CHECK(std::stod(f[col("max_ms")]) == p.time.max_ms);
        CHECK(std::stod(f[col("speedup_vs_vanilla")]) ==
              doctest::Approx(sc.baseline.vanilla.median_ms / p.time.median_ms));
        CHECK(std::stod(f[col("over_floor")]) == doctest::Approx(p.time.median_ms));
        CHECK(f[col("check_passed")] == "true");
      } else {
        CHECK(f[col("median_ms")].empty());
      }
    }
  }
  CHECK(parse_csv("a,\"b\"\"c\",\"d,e\"\r\n1,2,3") ==
        std::vector<std::vector<std::string>>{{"a", "b\"c", "d,e"}, {"1", "2", "3"}});
  CHECK_THROWS_AS((void)parse_csv("a,\"b"), std::invalid_argument);
}

TEST_CASE("JSON holds every point and reads back exactly") {
  const auto r = example();
  const std::string text = to_json_text(r);
  const auto back = results_from_json_text(text);
  CHECK(back.header == r.header);
  CHECK(back.option_names == r.option_names);
  REQUIRE(back.scenarios.size() == r.scenarios.size());
  for (std::size_t s = 0; s < r.scenarios.size(); ++s) {
    CHECK(back.scenarios[s].baseline == r.scenarios[s].baseline);
    CHECK(back.scenarios[s].points == r.scenarios[s].points);
  }
  const auto j = nlohmann::json::parse(text);
  CHECK(j.at("best_constant").at("schedule").at("chunk") == 4);
  CHECK(j.at("scenarios").at(0).at("best").at("schedule").at("chunk") == 1);
  CHECK(j.at("scenarios").at(0).at("points").at(0).contains("over_floor"));
  CHECK_THROWS_AS((void)results_from_json_text("{\"format\":\"something else\"}"),
                  std::invalid_argument);
}

// ---------------------------------------------------------------------------------------------
// PNG

namespace {
struct decoded {
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0;
  std::vector<std::uint8_t> rgb;
};

struct reader_state {
  const std::string* bytes;
  std::size_t at = 0;
};

void read_bytes(png_structp png, png_bytep out, png_size_t n) {
  auto* s = static_cast<reader_state*>(png_get_io_ptr(png));
  if (s->at + n > s->bytes->size()) png_error(png, "read past the end");
  std::memcpy(out, s->bytes->data() + s->at, n);
  s->at += n;
}

//! Decodes with libpng, independently of the writer.
decoded decode_png(const std::string& bytes) {
  decoded d;
  REQUIRE(bytes.size() > 8);
  REQUIRE(png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8) == 0);
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  reader_state state{&bytes};
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    FAIL("libpng could not decode the image");
    return d;
  }
  png_set_read_fn(png, &state, read_bytes);
  png_read_info(png, info);
  d.width = png_get_image_width(png, info);
  d.height = png_get_image_height(png, info);
  d.bit_depth = png_get_bit_depth(png, info);
  d.color_type = png_get_color_type(png, info);
  d.rgb.resize(static_cast<std::size_t>(d.width) * d.height * 3);
  std::vector<png_bytep> rows(d.height);
  for (png_uint_32 y = 0; y < d.height; ++y) rows[y] = d.rgb.data() + y * d.width * 3;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return d;
}
}  // namespace

TEST_CASE("the PNG writer produces a valid PNG of the right size and pixels") {
  image img(37, 21, white);
  img.fill_rect(3, 4, 5, 6, color{10, 200, 30});
  img.text(10, 2, "Ag1", black);
  const auto d = decode_png(encode_png(img));
  CHECK(d.width == 37);
  CHECK(d.height == 21);
  CHECK(d.bit_depth == 8);
  CHECK(d.color_type == PNG_COLOR_TYPE_RGB);
  CHECK(d.rgb == img.rgb());
  const auto px = [&](int x, int y) {
    const std::size_t i = (static_cast<std::size_t>(y) * d.width + x) * 3;
    return color{d.rgb[i], d.rgb[i + 1], d.rgb[i + 2]};
  };
  CHECK(px(3, 4) == color{10, 200, 30});
  CHECK(px(7, 9) == color{10, 200, 30});
  CHECK(px(8, 9) == white);
  CHECK(px(0, 0) == white);
  CHECK_THROWS_AS(image(0, 10), std::invalid_argument);
}

TEST_CASE("text is drawn from the built-in font, clipped at the edges") {
  image img(20, 12, white);
  img.text(1, 1, "T", black);  // top bar of T: 5 pixels
  for (int x = 1; x <= 5; ++x) CHECK(img.at(x, 1) == black);
  CHECK(img.at(3, 7) == black);  // the stem
  CHECK(img.at(1, 7) == white);
  img.text(15, 8, "WWW", black, 2);  // mostly outside: must not crash
  CHECK(text_width("abc") == 17);
  CHECK(text_width("abc", 2) == 34);
  CHECK(text_width("") == 0);
}

TEST_CASE("the heat map and the speedup plot render every scenario") {
  auto r = example();
  for (const auto& sc : r.scenarios) {
    const auto heat = render_heatmap(r, sc);
    const auto d = decode_png(encode_png(heat));
    CHECK(d.width == static_cast<png_uint_32>(heat.width()));
    CHECK(d.height == static_cast<png_uint_32>(heat.height()));
    CHECK(heat.width() > 300);
    const auto plot = render_speedup_plot(r, sc);
    CHECK(plot.width() == 1000);
    CHECK(plot.height() == 620);
  }
  CHECK_THROWS_AS(validate(heatmap_axes{"strategy", "chunk"}), std::invalid_argument);
  CHECK_THROWS_AS(validate(heatmap_axes{"chunk", "chunk"}), std::invalid_argument);
  CHECK_NOTHROW(validate(heatmap_axes{"fetch", "blocks-per-sm"}));
  const auto same = [](const std::vector<double>& got, const std::vector<double>& want) {
    if (got.size() != want.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (got[i] != doctest::Approx(want[i])) return false;
    }
    return true;
  };
  CHECK(same(nice_ticks(0, 2.9, 6), {0, 0.5, 1, 1.5, 2, 2.5, 3}));
  CHECK(same(nice_ticks(0, 3.1, 6), {0, 1, 2, 3, 4}));
  CHECK(same(nice_ticks(0.75, 1.2, 5), {0.7, 0.8, 0.9, 1, 1.1, 1.2}));
  CHECK(same(nice_ticks(0.8, 1.3, 5), {0.8, 0.9, 1, 1.1, 1.2, 1.3}));
  CHECK(file_slug("julia crunch=4096 offset=0") == "julia_crunch-4096_offset-0");
}

TEST_CASE("progress line: bar, counts, elapsed and time left from this session's points") {
  progress_event e;
  e.total = 100;
  e.done = 50;
  e.resumed = 40;
  e.label = "fake offset=0: hybrid";
  const auto line = progress_line(e, 20.0, 10);
  CHECK(line.find("[#####.....]") == 0);
  CHECK(line.find("50/100  50%") != std::string::npos);
  CHECK(line.find("elapsed 0:20") != std::string::npos);
  CHECK(line.find("left ~1:40") != std::string::npos);  // 10 points took 20 s, 50 left
  CHECK(line.find("fake offset=0: hybrid") != std::string::npos);
  e.resumed = 50;
  CHECK(progress_line(e, 1.0).find("left ~--:--") != std::string::npos);
  CHECK(format_duration(3725) == "1:02:05");
}
