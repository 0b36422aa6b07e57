import React from 'react';
import { BrowserRouter } from 'react-router-dom';
import { CompatRouter, Navigate, Route, useLocation, useParams } from 'react-router-dom-v5-compat';
import { Page } from '@patternfly/react-core';
import * as OCM from '@openshift-assisted/ui-lib/ocm';
import { Header } from './Header';
import { TokenPage } from './TokenPage';
import { ClustersPage } from './ClustersPage';
import { authRequired, getToken, onTokenChange } from './auth';
import './i18n';

const { UILibRoutes, Features, Config } = OCM;

/** Short deep links: /clusters/<id> is the library's /assisted-installer/clusters/<id>. */
const ClusterLink: React.FC = () => {
  const { clusterId } = useParams();
  return <Navigate replace to={`/assisted-installer/clusters/${clusterId ?? ''}`} />;
};

/** The library's routes, but for the clusters list, which is ours (paged: see ClustersPage). */
const Views: React.FC = () => {
  const { pathname } = useLocation();
  if (pathname.replace(/\/+$/, '') === '/assisted-installer/clusters') {
    return <ClustersPage />;
  }
  return (
    <UILibRoutes allEnabledFeatures={Features.STANDALONE_DEPLOYMENT_ENABLED_FEATURES}>
      <Route path="/clusters" element={<Navigate replace to="/assisted-installer/clusters" />} />
      <Route path="/clusters/:clusterId" element={<ClusterLink />} />
    </UILibRoutes>
  );
};

const useToken = () => {
  const [token, setState] = React.useState(getToken());
  React.useEffect(() => {
    const off = onTokenChange(() => setState(getToken()));
    return () => {
      off();
    };
  }, []);
  return token;
};

export const App: React.FC = () => {
  const token = useToken();
  if (authRequired && !token) {
    return <TokenPage />;
  }
  return (
    <BrowserRouter basename={Config.routeBasePath}>
      <CompatRouter>
        <Page masthead={<Header />}>
          <Views />
        </Page>
      </CompatRouter>
    </BrowserRouter>
  );
};
