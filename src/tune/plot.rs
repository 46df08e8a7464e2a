//! The search's plot (SVG, plotters), in the spirit of the thesis' Figure 6.13: per SCoP, each
//! configuration's time in the order measured, the best so far as a line and the default as a
//! dashed level; for a SCoP with two tiled dimensions, a heat map of the time over the two
//! sizes beside it.

use std::collections::BTreeMap;
use std::path::Path;

use avelas_contract::tuning::Tuned;
use plotters::prelude::*;

use super::{Measurement, ScopSearch};

const ROW: u32 = 360;

/// Draws the plot of `log` into `path`.
pub fn draw(
    path: &Path,
    scops: &BTreeMap<usize, ScopSearch>,
    log: &[Measurement],
) -> Result<(), Box<dyn std::error::Error>> {
    let rows = scops.len().max(1) as u32;
    let root = SVGBackend::new(path, (1100, ROW * rows)).into_drawing_area();
    root.fill(&WHITE)?;
    let areas = root.split_evenly((rows as usize, 1));
    for ((scop, s), area) in scops.iter().zip(areas) {
        let ms: Vec<&Measurement> = log.iter().filter(|m| m.scop == *scop).collect();
        let (left, right) = area.split_horizontally(620);
        timeline(&left, *scop, s, &ms)?;
        if s.search.space.depth == 2 {
            heat_map(&right, *scop, s, &ms)?;
        }
    }
    root.present()?;
    Ok(())
}

fn timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    scop: usize,
    s: &ScopSearch,
    ms: &[&Measurement],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let times: Vec<f64> = ms.iter().filter_map(|m| m.median()).collect();
    let top = times.iter().copied().fold(s.default_ms, f64::max).max(1e-3) * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("SCoP {scop}: time per configuration, in search order"),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0..(ms.len().max(1) as i32), 0.0..top)?;
    chart
        .configure_mesh()
        .x_desc("configuration")
        .y_desc("ms (median)")
        .draw()?;
    chart.draw_series(ms.iter().enumerate().filter_map(|(i, m)| {
        m.median()
            .map(|t| Circle::new((i as i32, t), 3, BLUE.filled()))
    }))?;
    // A stopped trial at the time it was stopped (a lower bound), within the plot.
    chart.draw_series(
        ms.iter()
            .enumerate()
            .filter(|(_, m)| m.status == "late")
            .map(|(i, m)| {
                let t = m.known().unwrap_or(top).min(top * 0.95);
                TriangleMarker::new((i as i32, t), 4, RGBColor(230, 140, 0).filled())
            }),
    )?;
    chart.draw_series(
        ms.iter()
            .enumerate()
            .filter(|(_, m)| !matches!(m.status, "ok" | "late" | "not-applied"))
            .map(|(i, _)| Cross::new((i as i32, top * 0.95), 4, RED.stroke_width(2))),
    )?;
    let mut so_far = f64::INFINITY;
    let line: Vec<(i32, f64)> = ms
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            so_far = so_far.min(m.median().unwrap_or(f64::INFINITY));
            so_far.is_finite().then_some((i as i32, so_far))
        })
        .collect();
    chart
        .draw_series(LineSeries::new(line, GREEN.stroke_width(2)))?
        .label("best so far")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], GREEN));
    chart
        .draw_series(LineSeries::new(
            vec![(0, s.default_ms), (ms.len() as i32, s.default_ms)],
            BLACK.stroke_width(1),
        ))?
        .label("default")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}

fn heat_map<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    scop: usize,
    s: &ScopSearch,
    ms: &[&Measurement],
) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    let sizes = &s.search.space.sizes;
    let n = sizes.len() as i32;
    let cells: Vec<(i32, i32, f64)> = ms
        .iter()
        .filter(|m| m.candidate.local_mem.is_none())
        .filter_map(|m| match (&m.candidate.tuned, m.median()) {
            (Tuned::Sizes(v), Some(t)) if v.len() == 2 => Some((
                s.search.space.nearest(v[0]) as i32,
                s.search.space.nearest(v[1]) as i32,
                t,
            )),
            _ => None,
        })
        .collect();
    let lo = cells.iter().map(|c| c.2).fold(f64::INFINITY, f64::min);
    let hi = cells.iter().map(|c| c.2).fold(0.0, f64::max);
    let label = |i: &i32| {
        sizes
            .get(*i as usize)
            .map(|v| v.to_string())
            .unwrap_or_default()
    };
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("SCoP {scop}: ms by tile sizes (dark: fast)"),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .build_cartesian_2d(0..n, 0..n)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("T0")
        .y_desc("T1")
        .x_labels(n as usize)
        .y_labels(n as usize)
        .x_label_formatter(&label)
        .y_label_formatter(&label)
        .draw()?;
    chart.draw_series(cells.iter().map(|&(x, y, t)| {
        let f = if hi > lo { (t - lo) / (hi - lo) } else { 0.0 };
        let shade = (40.0 + 215.0 * f) as u8;
        Rectangle::new(
            [(x, y), (x + 1, y + 1)],
            RGBColor(shade, shade, 255).filled(),
        )
    }))?;
    Ok(())
}
