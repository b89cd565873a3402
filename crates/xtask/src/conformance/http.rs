//! The suite's HTTP client: HTTP/1.0 GETs on loopback, each bounded in
//! time and size, reading the body or the attempts a balancer made.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// A loopback port as the backends answer it and the configs name it.
pub(super) fn address(port: u16) -> String {
    format!("127.0.0.1:{port}")
}

/// One GET to `front`, answered 200 or 502: the attempts its
/// `X-Upstream` header lists.
pub(super) fn attempts(front: u16, path: &str) -> Result<String, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], front));
    let mut response = Vec::new();
    request(front, path)?.take(4096).read_to_end(&mut response).map_err(|e| format!("{addr}: {e}"))?;
    let text = String::from_utf8_lossy(&response);
    let head = text.split("\r\n\r\n").next().unwrap_or_default();
    let status = head.lines().next().unwrap_or_default();
    let upstream = head
        .lines()
        .find_map(|l| l.strip_prefix("X-Upstream: "))
        .ok_or_else(|| format!("{addr}{path}: no X-Upstream header ({status})"))?;
    let mut tried = upstream.split(", ").collect::<Vec<_>>().join(">");
    if status.contains(" 502 ") {
        tried += ">502";
    } else if !status.contains(" 200 ") {
        return Err(format!("{addr}{path}: {status}"));
    }
    Ok(tried)
}

/// One HTTP/1.0 GET on loopback, its body (bounded: 2 s, 4 KiB).
pub(super) fn get(port: u16, path: &str) -> Result<String, String> {
    read_answer(&mut request(port, path)?, port).map_err(|e| format!("{path}: {e}"))
}

/// A GET of `path` sent to `port`, its answer to be read within 2 s.
fn request(port: u16, path: &str) -> Result<TcpStream, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| format!("{addr}: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(2))).map_err(|e| e.to_string())?;
    send(&mut stream, path)?;
    Ok(stream)
}

/// An HTTP/1.0 GET of `path`, in one write (pieces would wait on Nagle
/// for the balancer's delayed ACK, 40 ms a request).
pub(super) fn send(stream: &mut TcpStream, path: &str) -> Result<(), String> {
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    stream
        .write_all(format!("GET {path} HTTP/1.0\r\nHost: conformance\r\n\r\n").as_bytes())
        .map_err(|e| e.to_string())
}

/// A response read to its end (bounded: 4 KiB, the stream's timeout): its
/// body, which must come with a 200.
pub(super) fn read_answer(stream: &mut TcpStream, port: u16) -> Result<String, String> {
    let mut response = Vec::new();
    stream.take(4096).read_to_end(&mut response).map_err(|e| format!("127.0.0.1:{port}: {e}"))?;
    let text = String::from_utf8_lossy(&response);
    let (head, body) =
        text.split_once("\r\n\r\n").ok_or_else(|| format!("127.0.0.1:{port}: no HTTP response"))?;
    if !head.starts_with("HTTP/1.1 200") && !head.starts_with("HTTP/1.0 200") {
        return Err(format!("127.0.0.1:{port}: {}", head.lines().next().unwrap_or_default()));
    }
    Ok(body.trim().to_string())
}
