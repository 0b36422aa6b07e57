import React from 'react';
import {
  Button,
  Masthead,
  MastheadBrand,
  MastheadContent,
  MastheadLogo,
  MastheadMain,
  Toolbar,
  ToolbarContent,
  ToolbarGroup,
  ToolbarItem,
} from '@patternfly/react-core';
import { authRequired, setToken } from './auth';
import { serverEnv } from './env';

export const Header: React.FC = () => (
  <Masthead>
    <MastheadMain>
      <MastheadBrand>
        <MastheadLogo href="/" style={{ textDecoration: 'none', fontWeight: 600, fontSize: '1.2rem' }}>
          <img src="/favicon.svg" alt="" style={{ height: '1.6em', verticalAlign: 'middle', marginRight: '.5em' }} />
          Rendezvous
        </MastheadLogo>
      </MastheadBrand>
    </MastheadMain>
    <MastheadContent>
      <Toolbar isFullHeight>
        <ToolbarContent>
          <ToolbarGroup align={{ default: 'alignEnd' }}>
            <ToolbarItem>
              {/* a plain link: the fleet page is a page of its own, for watching many clusters at once */}
              <Button variant="link" component="a" href="/fleet" id="rdv-fleet-link">
                Fleet
              </Button>
            </ToolbarItem>
            {authRequired && (
              <ToolbarItem>
                <Button variant="link" onClick={() => setToken(null)} id="rdv-logout">
                  Log out
                </Button>
              </ToolbarItem>
            )}
            <ToolbarItem>
              <span className="pf-v6-u-color-200" style={{ lineHeight: 2.2 }}>{serverEnv.version}</span>
            </ToolbarItem>
          </ToolbarGroup>
        </ToolbarContent>
      </Toolbar>
    </MastheadContent>
  </Masthead>
);
