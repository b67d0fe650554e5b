"""Reports for people: fixed-width text tables, the HTML report and error plots."""
