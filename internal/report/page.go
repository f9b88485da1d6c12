package report

// The HTML pages latlab writes (the report, the check-up) begin alike:
// pageHead opens a self-contained document (its Content-Security-Policy
// lets it load nothing: no script, no font, no image from the network)
// and the style every page shares; a page adds its own rules after it and
// closes the head with pageBody. Each page's template holds {{.Title}}.

const pageHead = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
<title>{{.Title}}</title>
<style>
` + pageStyle

// pageStyle is the style every page shares.
const pageStyle = `:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; line-height: 1.45; margin: 0 auto; padding: 1rem; max-width: 64rem; color: #1b1b1b; background: #fff; font-size: 16px; }
h1 { font-size: 1.5rem; margin: .2rem 0; }
.verdict { background: #eef5fb; border-left: 4px solid #0072b2; padding: .5rem .7rem; margin: .4rem 0; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; -webkit-overflow-scrolling: touch; margin: .6rem 0; }
figure { margin: 1rem 0; }
svg.plot { width: 100%; height: auto; display: block; }
footer { margin-top: 2rem; color: #777; font-size: .8rem; }
`

const pageBody = `</style>
</head>
<body>
`
