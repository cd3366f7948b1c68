import { useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { usageQuery } from '../../api/queries';
import { PageHeader, QueryView } from '../../layout/page-states';
import { lastDaysRange } from '../../format/format';
import { downloadCsv, usageToCsv } from './usage-csv';
import { UsageReport } from './usage-report';

/** Usage over a date range: daily requests, tokens and cost, by model and by key, as CSV too. */
export default function UsagePage() {
  const initial = lastDaysRange(30);
  const [range, setRange] = useState(initial);
  const usage = useQuery(usageQuery(range.start, range.end));
  const invalid = range.start > range.end;
  return (
    <>
      <PageHeader
        title="Usage"
        description="Every request made with your keys, counted in UTC days."
        actions={
          <>
            <Link className="button" to={`/activity?start_date=${range.start}&end_date=${range.end}`}>
              Each request
            </Link>
            <button
              type="button"
              className="button"
              disabled={!usage.data}
              onClick={() => usage.data && downloadCsv(`usage-${range.start}-${range.end}.csv`, usageToCsv(usage.data))}
            >
              Export CSV
            </button>
          </>
        }
      />
      <div className="toolbar" role="group" aria-label="Date range">
        <div className="field">
          <label htmlFor="usage-start">From</label>
          <input
            id="usage-start"
            type="date"
            value={range.start}
            max={range.end}
            onChange={(event) => event.target.value && setRange({ ...range, start: event.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="usage-end">To</label>
          <input
            id="usage-end"
            type="date"
            value={range.end}
            min={range.start}
            onChange={(event) => event.target.value && setRange({ ...range, end: event.target.value })}
          />
        </div>
        {[7, 30, 90].map((days) => (
          <button key={days} type="button" className="button" onClick={() => setRange(lastDaysRange(days))}>
            Last {days} days
          </button>
        ))}
      </div>
      {invalid ? (
        <p className="form-failure">The start date is after the end date.</p>
      ) : (
        <QueryView query={usage} label="Loading usage">
          {(data) => <UsageReport usage={data} />}
        </QueryView>
      )}
    </>
  );
}
