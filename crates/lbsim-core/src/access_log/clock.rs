//! The dates logs write, as milliseconds since the Unix epoch (UTC).

/// Days from 1970-01-01 to a civil date (Howard Hinnant's
/// `days_from_civil`, exact for every proleptic Gregorian date).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn digits(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

const MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// Epoch ms of a date and a time of day, when they are a real one.
fn epoch_ms(year: i64, month: u32, day: u32, time: &str) -> Option<f64> {
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (hms, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut parts = hms.split(':');
    let (h, m, s) = (digits(parts.next()?)?, digits(parts.next()?)?, digits(parts.next()?)?);
    if parts.next().is_some() || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let fraction_ms = if fraction.is_empty() {
        0.0
    } else {
        digits(fraction)?;
        fraction.parse::<f64>().ok()? / libm::pow(10.0, fraction.len() as f64) * 1000.0
    };
    let days = days_from_civil(year, month, day);
    Some((days * 86_400 + i64::from(h * 3600 + m * 60 + s)) as f64 * 1000.0 + fraction_ms)
}

/// A zone offset `+0100` or `+01:00` (`Z` is 0), in ms to subtract.
fn zone_ms(zone: &str) -> Option<f64> {
    if zone == "Z" || zone.is_empty() {
        return Some(0.0);
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1.0,
        b'-' => -1.0,
        _ => return None,
    };
    let rest: alloc::string::String = zone[1..].chars().filter(|&c| c != ':').collect();
    if rest.len() != 4 {
        return None;
    }
    let (h, m) = (digits(&rest[..2])?, digits(&rest[2..])?);
    Some(sign * f64::from(h * 60 + m) * 60_000.0)
}

/// NGINX's `$time_local` and HAProxy's accept date:
/// `07/Dec/2026:18:14:27 +0000`, `07/Dec/2026:18:14:27.123` (no zone: UTC).
pub(super) fn common_log(text: &str) -> Option<f64> {
    let (stamp, zone) = text.split_once(' ').unwrap_or((text, ""));
    let mut parts = stamp.splitn(3, '/');
    let day = digits(parts.next()?)?;
    let name = parts.next()?;
    let month = MONTHS.iter().position(|&m| m == name)? as u32 + 1;
    let (year, time) = parts.next()?.split_once(':')?;
    Some(epoch_ms(i64::from(digits(year)?), month, day, time)? - zone_ms(zone)?)
}

/// ISO 8601 as ALB and NGINX's `$time_iso8601` write it:
/// `2026-12-07T18:14:27.123456Z`, `2026-12-07T18:14:27+00:00`.
pub(super) fn iso8601(text: &str) -> Option<f64> {
    let (date, rest) = text.split_once('T')?;
    let mut parts = date.splitn(3, '-');
    let (year, month, day) = (digits(parts.next()?)?, digits(parts.next()?)?, digits(parts.next()?)?);
    let zone_at = rest.find(['Z', '+', '-']).unwrap_or(rest.len());
    let (time, zone) = rest.split_at(zone_at);
    Some(epoch_ms(i64::from(year), month, day, time)? - zone_ms(zone)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_the_epoch_ms_date_1_prints() {
        // `date -u -d 2026-12-07T18:14:27 +%s` prints 1796667267.
        assert_eq!(iso8601("2026-12-07T18:14:27Z"), Some(1_796_667_267_000.0));
        assert_eq!(iso8601("2026-12-07T18:14:27.250000Z"), Some(1_796_667_267_250.0));
        assert_eq!(iso8601("2026-12-07T19:14:27+01:00"), Some(1_796_667_267_000.0));
        assert_eq!(common_log("07/Dec/2026:18:14:27 +0000"), Some(1_796_667_267_000.0));
        assert_eq!(common_log("07/Dec/2026:13:14:27 -0500"), Some(1_796_667_267_000.0));
        assert_eq!(common_log("07/Dec/2026:18:14:27.125"), Some(1_796_667_267_125.0));
        // `date -u -d 2000-02-29T00:00:00 +%s` prints 951782400.
        assert_eq!(iso8601("2000-02-29T00:00:00Z"), Some(951_782_400_000.0));
        assert_eq!(common_log("07/Foo/2026:18:14:27"), None);
        assert_eq!(iso8601("2026-13-07T18:14:27Z"), None);
    }
}
