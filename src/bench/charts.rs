//! `polyc bench`'s SVG charts (plotters): the speed-up of every kernel on every target, one
//! panel per dataset, on a log scale around 1× (bars up: faster than the original, down:
//! slower), and the geometric means.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::report::geomeans;
use super::Row;

type Res = Result<(), Box<dyn std::error::Error>>;

const COLOURS: [RGBColor; 3] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
];

fn colour(targets: &[&str], target: &str) -> RGBColor {
    COLOURS[targets.iter().position(|t| *t == target).unwrap_or(0) % COLOURS.len()]
}

/// The y range that holds every value and 1×, with some air.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((1.0f64, 1.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    (lo / 1.5, hi * 1.5)
}

fn distinct<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for i in items {
        if !v.contains(&i) {
            v.push(i);
        }
    }
    v
}

/// A ratio as an axis label: enough digits to tell the ticks of a log scale apart.
pub fn ratio(y: f64) -> String {
    if y >= 10.0 {
        format!("{y:.0}")
    } else if y >= 0.1 {
        format!("{y:.2}")
    } else {
        format!("{y:.1e}")
    }
}

/// Speed-up per kernel per target, a panel per dataset.
pub fn speedups(path: &Path, rows: &[Row]) -> Res {
    let datasets = distinct(rows.iter().map(|r| r.dataset.as_str()));
    let targets = distinct(rows.iter().map(|r| r.target));
    let kernels = distinct(rows.iter().map(|r| r.kernel.as_str()));
    let width = (160 + 28 * kernels.len() as u32 * targets.len().max(1) as u32).max(600);
    let root =
        SVGBackend::new(path, (width, 420 * datasets.len().max(1) as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    for (dataset, area) in datasets
        .iter()
        .zip(root.split_evenly((datasets.len().max(1), 1)))
    {
        let rows: Vec<&Row> = rows.iter().filter(|r| r.dataset == *dataset).collect();
        let (lo, hi) = range(rows.iter().filter_map(|r| r.speedup()));
        let n = kernels.len().max(1);
        let mut chart = ChartBuilder::on(&area)
            .caption(
                format!("speed-up over the original, {dataset} (log scale)"),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(110)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..n as f64, (lo..hi).log_scale())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("× original")
            .y_label_formatter(&|y| ratio(*y))
            .draw()?;
        // The kernels' names under their groups, turned (plotters puts axis labels at round
        // numbers, not at the groups).
        let style = TextStyle::from(
            ("sans-serif", 12)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, k) in kernels.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64 + 0.5, lo));
            root.draw(&Text::new(k.to_string(), (x, y + 6), style.clone()))?;
        }
        let w = 0.8 / targets.len().max(1) as f64;
        for (ti, target) in targets.iter().enumerate() {
            let c = colour(&targets, target);
            chart
                .draw_series(rows.iter().filter(|r| r.target == *target).filter_map(|r| {
                    let k = kernels.iter().position(|k| *k == r.kernel)? as f64;
                    let x = k + 0.1 + w * ti as f64;
                    Some(Rectangle::new(
                        [(x, 1.0), (x + w, r.speedup()?)],
                        c.filled(),
                    ))
                }))?
                .label(*target)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], c.filled()));
            // The 95% interval of each speed-up, a line through its bar's middle.
            chart.draw_series(rows.iter().filter(|r| r.target == *target).filter_map(|r| {
                let k = kernels.iter().position(|k| *k == r.kernel)? as f64;
                let x = k + 0.1 + w * (ti as f64 + 0.5);
                let i = r.interval()?;
                Some(PathElement::new(
                    vec![(x, i.low.max(lo)), (x, i.high.min(hi))],
                    BLACK.stroke_width(1),
                ))
            }))?;
        }
        chart.draw_series(LineSeries::new(
            vec![(0.0, 1.0), (n as f64, 1.0)],
            BLACK.stroke_width(1),
        ))?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// The geometric mean of the speed-ups per target and dataset.
pub fn geomeans_chart(path: &Path, rows: &[Row]) -> Res {
    let means: Vec<((String, String), (f64, usize))> = geomeans(rows).into_iter().collect();
    let targets = distinct(rows.iter().map(|r| r.target));
    let n = means.len().max(1);
    let root = SVGBackend::new(path, ((140 + 110 * n as u32).max(420), 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let (lo, hi) = range(means.iter().map(|(_, (g, _))| *g));
    let labels: Vec<String> = means
        .iter()
        .map(|((t, d), (_, k))| format!("{t} {d} ({k})"))
        .collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "geometric mean of the speed-ups (log scale)",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..n as f64, (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("× original")
        .y_label_formatter(&|y| ratio(*y))
        .draw()?;
    for (i, l) in labels.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(i as f64 + 0.5, lo));
        root.draw(&Text::new(
            l.clone(),
            (x, y + 8),
            TextStyle::from(("sans-serif", 12)).pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    chart.draw_series(means.iter().enumerate().map(|(i, ((t, _), (g, _)))| {
        Rectangle::new(
            [(i as f64 + 0.2, 1.0), (i as f64 + 0.8, *g)],
            colour(&targets, t).filled(),
        )
    }))?;
    chart.draw_series(LineSeries::new(
        vec![(0.0, 1.0), (n as f64, 1.0)],
        BLACK.stroke_width(1),
    ))?;
    root.present()?;
    Ok(())
}
